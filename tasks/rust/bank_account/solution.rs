#[derive(Debug, PartialEq)]
pub enum BankError {
    InvalidAmount,
    Insufficient { needed: u64, available: u64 },
}

#[derive(Debug, Default)]
pub struct Account {
    balance: u64,
}

impl Account {
    pub fn new() -> Self {
        Account { balance: 0 }
    }

    pub fn balance(&self) -> u64 {
        self.balance
    }

    pub fn deposit(&mut self, cents: u64) -> Result<u64, BankError> {
        if cents == 0 {
            return Err(BankError::InvalidAmount);
        }
        self.balance = self.balance.checked_add(cents).ok_or(BankError::InvalidAmount)?;
        Ok(self.balance)
    }

    pub fn withdraw(&mut self, cents: u64) -> Result<u64, BankError> {
        if cents == 0 {
            return Err(BankError::InvalidAmount);
        }
        if cents > self.balance {
            return Err(BankError::Insufficient { needed: cents, available: self.balance });
        }
        self.balance -= cents;
        Ok(self.balance)
    }
}

pub fn transfer(from: &mut Account, to: &mut Account, cents: u64) -> Result<(), BankError> {
    from.withdraw(cents)?;
    if let Err(e) = to.deposit(cents) {
        from.balance += cents;
        return Err(e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deposit_and_withdraw() {
        let mut a = Account::new();
        assert_eq!(a.deposit(500), Ok(500));
        assert_eq!(a.withdraw(200), Ok(300));
        assert_eq!(a.balance(), 300);
    }

    #[test]
    fn zero_is_invalid() {
        let mut a = Account::new();
        assert_eq!(a.deposit(0), Err(BankError::InvalidAmount));
        assert_eq!(a.withdraw(0), Err(BankError::InvalidAmount));
    }

    #[test]
    fn insufficient_keeps_balance() {
        let mut a = Account::new();
        a.deposit(100).unwrap();
        assert_eq!(a.withdraw(150), Err(BankError::Insufficient { needed: 150, available: 100 }));
        assert_eq!(a.balance(), 100);
    }

    #[test]
    fn transfer_moves_money() {
        let (mut a, mut b) = (Account::new(), Account::new());
        a.deposit(100).unwrap();
        assert_eq!(transfer(&mut a, &mut b, 60), Ok(()));
        assert_eq!((a.balance(), b.balance()), (40, 60));
    }

    #[test]
    fn failed_transfer_changes_nothing() {
        let (mut a, mut b) = (Account::new(), Account::new());
        a.deposit(10).unwrap();
        assert_eq!(transfer(&mut a, &mut b, 11).is_err(), true);
        assert_eq!((a.balance(), b.balance()), (10, 0));
    }
}

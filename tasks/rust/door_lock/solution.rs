#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DoorState {
    Open,
    Closed,
    Locked,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Open,
    Close,
    Lock,
    Unlock(u32),
}

#[derive(Debug, PartialEq, Eq)]
pub enum DoorError {
    Invalid { state: DoorState, action: Action },
    WrongCode,
}

pub struct Door {
    state: DoorState,
    code: u32,
}

impl Door {
    pub fn new(code: u32) -> Self {
        Door { state: DoorState::Closed, code }
    }

    pub fn state(&self) -> DoorState {
        self.state
    }

    pub fn apply(&mut self, action: Action) -> Result<DoorState, DoorError> {
        self.state = match (self.state, action) {
            (DoorState::Closed, Action::Open) => DoorState::Open,
            (DoorState::Open, Action::Close) => DoorState::Closed,
            (DoorState::Closed, Action::Lock) => DoorState::Locked,
            (DoorState::Locked, Action::Unlock(code)) if code == self.code => DoorState::Closed,
            (DoorState::Locked, Action::Unlock(_)) => return Err(DoorError::WrongCode),
            (state, action) => return Err(DoorError::Invalid { state, action }),
        };
        Ok(self.state)
    }

    pub fn apply_all(&mut self, actions: &[Action]) -> Result<DoorState, DoorError> {
        for &action in actions {
            self.apply(action)?;
        }
        Ok(self.state)
    }
}

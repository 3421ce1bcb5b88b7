#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_close_lock_unlock() {
        let mut door = Door::new(1234);
        assert_eq!(door.state(), DoorState::Closed);
        assert_eq!(door.apply(Action::Open), Ok(DoorState::Open));
        assert_eq!(door.apply(Action::Close), Ok(DoorState::Closed));
        assert_eq!(door.apply(Action::Lock), Ok(DoorState::Locked));
        assert_eq!(door.apply(Action::Unlock(1234)), Ok(DoorState::Closed));
    }

    #[test]
    fn wrong_code_stays_locked() {
        let mut door = Door::new(7);
        door.apply(Action::Lock).unwrap();
        assert_eq!(door.apply(Action::Unlock(8)), Err(DoorError::WrongCode));
        assert_eq!(door.state(), DoorState::Locked);
    }

    #[test]
    fn invalid_transitions() {
        let mut door = Door::new(7);
        door.apply(Action::Open).unwrap();
        assert_eq!(
            door.apply(Action::Lock),
            Err(DoorError::Invalid { state: DoorState::Open, action: Action::Lock })
        );
        assert_eq!(door.state(), DoorState::Open);
    }

    #[test]
    fn locked_door_cannot_open() {
        let mut door = Door::new(7);
        door.apply(Action::Lock).unwrap();
        assert_eq!(
            door.apply(Action::Open),
            Err(DoorError::Invalid { state: DoorState::Locked, action: Action::Open })
        );
    }

    #[test]
    fn apply_all_stops_at_first_error() {
        let mut door = Door::new(5);
        assert_eq!(
            door.apply_all(&[Action::Open, Action::Close, Action::Lock]),
            Ok(DoorState::Locked)
        );
        assert_eq!(
            door.apply_all(&[Action::Unlock(5), Action::Close, Action::Open]),
            Err(DoorError::Invalid { state: DoorState::Closed, action: Action::Close })
        );
        assert_eq!(door.state(), DoorState::Closed);
    }
}

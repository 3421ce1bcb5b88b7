#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves() {
        assert_eq!(parse_command("move 3 -4"), Ok(Command::Move(3, -4)));
    }

    #[test]
    fn says() {
        assert_eq!(parse_command("  say hello there "), Ok(Command::Say("hello there".to_string())));
    }

    #[test]
    fn quits() {
        assert_eq!(parse_command("quit"), Ok(Command::Quit));
    }

    #[test]
    fn empty() {
        assert_eq!(parse_command("   "), Err(ParseError::Empty));
    }

    #[test]
    fn unknown() {
        assert_eq!(parse_command("jump 1"), Err(ParseError::Unknown("jump".to_string())));
    }

    #[test]
    fn bad_args() {
        assert_eq!(parse_command("move 1"), Err(ParseError::BadArgs));
        assert_eq!(parse_command("move a b"), Err(ParseError::BadArgs));
        assert_eq!(parse_command("say"), Err(ParseError::BadArgs));
    }
}

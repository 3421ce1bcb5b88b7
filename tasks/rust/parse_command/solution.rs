#[derive(Debug, PartialEq)]
pub enum Command {
    Move(i32, i32),
    Say(String),
    Quit,
}

#[derive(Debug, PartialEq)]
pub enum ParseError {
    Empty,
    Unknown(String),
    BadArgs,
}

pub fn parse_command(line: &str) -> Result<Command, ParseError> {
    let line = line.trim();
    let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
    match word {
        "" => Err(ParseError::Empty),
        "quit" if rest.trim().is_empty() => Ok(Command::Quit),
        "say" if !rest.is_empty() => Ok(Command::Say(rest.to_string())),
        "move" => {
            let args: Vec<&str> = rest.split_whitespace().collect();
            match args.as_slice() {
                [x, y] => match (x.parse(), y.parse()) {
                    (Ok(x), Ok(y)) => Ok(Command::Move(x, y)),
                    _ => Err(ParseError::BadArgs),
                },
                _ => Err(ParseError::BadArgs),
            }
        }
        "quit" | "say" => Err(ParseError::BadArgs),
        other => Err(ParseError::Unknown(other.to_string())),
    }
}

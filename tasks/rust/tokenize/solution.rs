use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    Number(i64),
    Ident(String),
    Plus,
    Minus,
    Star,
    Slash,
    LParen,
    RParen,
}

#[derive(Debug, PartialEq, Eq)]
pub enum TokenError {
    UnexpectedChar { ch: char, pos: usize },
    NumberTooLarge(String),
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::UnexpectedChar { ch, pos } => write!(f, "unexpected {ch:?} at byte {pos}"),
            TokenError::NumberTooLarge(digits) => write!(f, "number {digits} does not fit in i64"),
        }
    }
}

pub fn tokenize(input: &str) -> Result<Vec<Token>, TokenError> {
    let mut tokens = Vec::new();
    let mut chars = input.char_indices().peekable();
    while let Some((pos, ch)) = chars.next() {
        let token = match ch {
            c if c.is_whitespace() => continue,
            '+' => Token::Plus,
            '-' => Token::Minus,
            '*' => Token::Star,
            '/' => Token::Slash,
            '(' => Token::LParen,
            ')' => Token::RParen,
            c if c.is_ascii_digit() => {
                let mut digits = c.to_string();
                while let Some(&(_, next)) = chars.peek().filter(|(_, n)| n.is_ascii_digit()) {
                    digits.push(next);
                    chars.next();
                }
                let value =
                    digits.parse().map_err(|_| TokenError::NumberTooLarge(digits.clone()))?;
                Token::Number(value)
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut name = c.to_string();
                while let Some(&(_, next)) =
                    chars.peek().filter(|(_, n)| n.is_ascii_alphanumeric() || *n == '_')
                {
                    name.push(next);
                    chars.next();
                }
                Token::Ident(name)
            }
            ch => return Err(TokenError::UnexpectedChar { ch, pos }),
        };
        tokens.push(token);
    }
    Ok(tokens)
}

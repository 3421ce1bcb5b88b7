#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expression() {
        assert_eq!(
            tokenize("2*(x + 10)"),
            Ok(vec![
                Token::Number(2),
                Token::Star,
                Token::LParen,
                Token::Ident("x".to_string()),
                Token::Plus,
                Token::Number(10),
                Token::RParen,
            ])
        );
    }

    #[test]
    fn identifiers_and_operators() {
        assert_eq!(
            tokenize("rate_2 - _a/b9"),
            Ok(vec![
                Token::Ident("rate_2".to_string()),
                Token::Minus,
                Token::Ident("_a".to_string()),
                Token::Slash,
                Token::Ident("b9".to_string()),
            ])
        );
    }

    #[test]
    fn whitespace_only() {
        assert_eq!(tokenize(" \t\n"), Ok(vec![]));
    }

    #[test]
    fn unexpected_char_position() {
        assert_eq!(tokenize("1 + $"), Err(TokenError::UnexpectedChar { ch: '$', pos: 4 }));
        assert_eq!(TokenError::UnexpectedChar { ch: '$', pos: 4 }.to_string().contains('4'), true);
    }

    #[test]
    fn number_too_large() {
        assert_eq!(
            tokenize("99999999999999999999"),
            Err(TokenError::NumberTooLarge("99999999999999999999".to_string()))
        );
    }
}

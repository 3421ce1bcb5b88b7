#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn area() {
        assert_eq!(Rectangle { width: 3, height: 4 }.area(), 12);
        assert_eq!(Rectangle { width: 0, height: 9 }.area(), 0);
    }

    #[test]
    fn square() {
        assert_eq!(Rectangle { width: 5, height: 5 }.is_square(), true);
    }

    #[test]
    fn not_square() {
        assert_eq!(Rectangle { width: 5, height: 6 }.is_square(), false);
        assert_eq!(Rectangle { width: 2, height: 2 }.is_square(), true);
    }
}

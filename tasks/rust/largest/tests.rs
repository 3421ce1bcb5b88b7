#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty() {
        assert_eq!(largest(&[]), None);
        assert_eq!(largest(&[0]), Some(0));
    }

    #[test]
    fn mixed() {
        assert_eq!(largest(&[3, -1, 9, 2]), Some(9));
    }

    #[test]
    fn all_negative() {
        assert_eq!(largest(&[-3, -8]), Some(-3));
    }
}

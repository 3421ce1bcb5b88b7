#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example() {
        assert_eq!(run_length_encode("aaabccdddd"), "3a1b2c4d");
    }

    #[test]
    fn empty() {
        assert_eq!(run_length_encode(""), "");
        assert_eq!(run_length_encode("z"), "1z");
    }

    #[test]
    fn long_run_and_unicode() {
        assert_eq!(run_length_encode("ééééééééééééx"), "12é1x");
    }
}

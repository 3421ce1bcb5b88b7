#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_runs() {
        assert_eq!(compress_ranges(&[1, 2, 3, 5, 7, 8]), vec!["1-3", "5", "7-8"]);
    }

    #[test]
    fn all_single() {
        assert_eq!(compress_ranges(&[0, 2, 4]), vec!["0", "2", "4"]);
    }

    #[test]
    fn one_long_run() {
        assert_eq!(compress_ranges(&[10, 11, 12, 13]), vec!["10-13"]);
    }

    #[test]
    fn empty() {
        assert_eq!(compress_ranges(&[]), Vec::<String>::new());
        assert_eq!(compress_ranges(&[4]), vec!["4"]);
    }
}

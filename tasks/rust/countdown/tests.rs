#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_down_to_one() {
        assert_eq!(Countdown::new(3).collect::<Vec<_>>(), vec![3, 2, 1]);
    }

    #[test]
    fn zero_yields_nothing() {
        assert_eq!(Countdown::new(0).next(), None);
    }

    #[test]
    fn stays_finished() {
        let mut c = Countdown::new(1);
        assert_eq!(c.next(), Some(1));
        assert_eq!(c.next(), None);
        assert_eq!(c.next(), None);
    }

    #[test]
    fn works_with_adapters() {
        assert_eq!(Countdown::new(4).sum::<u32>(), 10);
        assert_eq!(Countdown::new(10).filter(|n| n % 5 == 0).count(), 2);
    }
}

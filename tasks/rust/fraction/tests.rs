#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduces_and_normalizes_sign() {
        let f = Fraction::new(2, -4).unwrap();
        assert_eq!((f.numerator(), f.denominator()), (-1, 2));
        let g = Fraction::new(0, 5).unwrap();
        assert_eq!((g.numerator(), g.denominator()), (0, 1));
    }

    #[test]
    fn zero_denominator() {
        assert_eq!(Fraction::new(1, 0), None);
        assert_eq!(Fraction::new(3, 1).map(|f| (f.numerator(), f.denominator())), Some((3, 1)));
    }

    #[test]
    fn addition() {
        let sum = Fraction::new(1, 6).unwrap() + Fraction::new(1, 3).unwrap();
        assert_eq!(sum == Fraction::new(1, 2).unwrap(), true); // Fraction's fields (and Debug) are the solution's own
        assert_eq!((sum.numerator(), sum.denominator()), (1, 2));
    }

    #[test]
    fn display() {
        assert_eq!(Fraction::new(3, 4).unwrap().to_string(), "3/4");
        assert_eq!(Fraction::new(-6, 3).unwrap().to_string(), "-2");
        assert_eq!((Fraction::new(1, 2).unwrap() + Fraction::new(1, 2).unwrap()).to_string(), "1");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_and_sub() {
        assert_eq!(Vec2::new(1.0, 2.0) + Vec2::new(3.0, 4.0), Vec2::new(4.0, 6.0));
        assert_eq!(Vec2::new(1.0, 2.0) - Vec2::new(3.0, 5.0), Vec2::new(-2.0, -3.0));
    }

    #[test]
    fn scale() {
        assert_eq!(Vec2::new(1.5, -2.0) * 2.0, Vec2::new(3.0, -4.0));
    }

    #[test]
    fn dot_product() {
        assert_eq!(Vec2::new(1.0, 2.0).dot(Vec2::new(3.0, 4.0)), 11.0);
        assert_eq!(Vec2::new(1.0, 0.0).dot(Vec2::new(0.0, 1.0)) + 0.0, 0.0); // + 0.0: -0.0 counts as 0.0
    }

    #[test]
    fn length() {
        assert_eq!(Vec2::new(3.0, 4.0).length(), 5.0);
        assert_eq!(Vec2::new(0.0, 0.0).length() + 0.0, 0.0);
    }
}

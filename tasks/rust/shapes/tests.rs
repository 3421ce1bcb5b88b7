#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_area() {
        assert_eq!(Rect { width: 2.0, height: 3.5 }.area(), 7.0);
    }

    #[test]
    fn circle_area() {
        assert!((Circle { radius: 1.0 }.area() - std::f64::consts::PI).abs() < 1e-12);
    }

    #[test]
    fn names() {
        assert_eq!(Circle { radius: 1.0 }.name(), "circle");
        assert_eq!(Rect { width: 1.0, height: 1.0 }.name(), "rect");
    }

    #[test]
    fn total() {
        let shapes: Vec<Box<dyn Shape>> = vec![
            Box::new(Rect { width: 1.0, height: 2.0 }),
            Box::new(Rect { width: 3.0, height: 1.0 }),
        ];
        assert_eq!(total_area(&shapes), 5.0);
        assert_eq!(total_area(&[]), 0.0);
    }
}

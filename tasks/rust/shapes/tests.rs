#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_area() {
        assert_eq!(Rect { width: 2.0, height: 3.5 }.area(), 7.0);
    }

    #[test]
    fn circle_area() {
        assert_eq!(format!("{:.11}", Circle { radius: 1.0 }.area()), "3.14159265359"); // within ~5e-12 of pi
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
        assert_eq!(total_area(&[]) + 0.0, 0.0); // + 0.0: -0.0 counts as 0.0, as == does
    }
}

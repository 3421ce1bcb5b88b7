#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_tuple() {
        assert_eq!(Rgb::from((1, 2, 3)), Rgb { r: 1, g: 2, b: 3 });
    }

    #[test]
    fn into_from_tuple() {
        let color: Rgb = (10, 20, 30).into();
        assert_eq!((color.r, color.g, color.b), (10, 20, 30));
    }

    #[test]
    fn packs_to_u32() {
        assert_eq!(u32::from(Rgb { r: 255, g: 128, b: 0 }), 0xFF8000);
        assert_eq!(u32::from(Rgb { r: 0, g: 0, b: 0 }), 0);
    }

    #[test]
    fn white_into_u32() {
        let packed: u32 = Rgb::from((255, 255, 255)).into();
        assert_eq!(packed, 0xFFFFFF);
    }
}

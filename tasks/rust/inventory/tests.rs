#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_accumulates() {
        let mut inv = Inventory::new();
        inv.add("apple", 3);
        inv.add("apple", 4);
        assert_eq!(inv.count("apple"), 7);
    }

    #[test]
    fn unknown_item_is_zero() {
        let inv = Inventory::new();
        assert_eq!(inv.count("pear"), 0);
        let mut stocked = Inventory::new();
        stocked.add("fig", 2);
        assert_eq!((stocked.count("fig"), stocked.count("pear")), (2, 0));
    }

    #[test]
    fn remove_enough() {
        let mut inv = Inventory::new();
        inv.add("nail", 10);
        assert_eq!(inv.remove("nail", 4), true);
        assert_eq!(inv.count("nail"), 6);
    }

    #[test]
    fn remove_too_many_changes_nothing() {
        let mut inv = Inventory::new();
        inv.add("nail", 2);
        assert_eq!(inv.remove("nail", 3), false);
        assert_eq!(inv.remove("screw", 1), false);
        assert_eq!(inv.count("nail"), 2);
    }
}

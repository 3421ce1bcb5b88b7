use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct Inventory {
    items: HashMap<String, u32>,
}

impl Inventory {
    pub fn new() -> Self {
        Inventory { items: HashMap::new() }
    }

    pub fn add(&mut self, item: &str, quantity: u32) {
        *self.items.entry(item.to_string()).or_insert(0) += quantity;
    }

    pub fn remove(&mut self, item: &str, quantity: u32) -> bool {
        match self.items.get_mut(item) {
            Some(stock) if *stock >= quantity => {
                *stock -= quantity;
                true
            }
            _ => quantity == 0,
        }
    }

    pub fn count(&self, item: &str) -> u32 {
        self.items.get(item).copied().unwrap_or(0)
    }
}

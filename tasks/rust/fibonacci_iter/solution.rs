pub struct Fibonacci {
    current: Option<u64>,
    next: Option<u64>,
}

impl Fibonacci {
    pub fn new() -> Self {
        Fibonacci { current: Some(0), next: Some(1) }
    }
}

impl Default for Fibonacci {
    fn default() -> Self {
        Self::new()
    }
}

impl Iterator for Fibonacci {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let value = self.current?;
        self.current = self.next;
        self.next = self.next.and_then(|n| n.checked_add(value));
        Some(value)
    }
}

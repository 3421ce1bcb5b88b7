pub trait Animal {
    fn name(&self) -> String;
    fn sound(&self) -> String;

    fn speak(&self) -> String {
        format!("{} says {}", self.name(), self.sound())
    }
}

pub struct Dog {
    pub name: String,
}

pub struct Cow {
    pub name: String,
}

impl Animal for Dog {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn sound(&self) -> String {
        "woof".to_string()
    }
}

impl Animal for Cow {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn sound(&self) -> String {
        "moo".to_string()
    }
}

use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Employee {
    pub name: String,
    pub age: u32,
}

#[derive(Debug, PartialEq, Eq)]
pub enum EmployeeError {
    MissingComma,
    EmptyName,
    BadAge(String),
}

impl fmt::Display for EmployeeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmployeeError::MissingComma => write!(f, "expected \"name, age\""),
            EmployeeError::EmptyName => write!(f, "the name is empty"),
            EmployeeError::BadAge(age) => write!(f, "{age:?} is not a valid age"),
        }
    }
}

impl FromStr for Employee {
    type Err = EmployeeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (name, age) = text.split_once(',').ok_or(EmployeeError::MissingComma)?;
        let (name, age) = (name.trim(), age.trim());
        if name.is_empty() {
            return Err(EmployeeError::EmptyName);
        }
        let age = age.parse().map_err(|_| EmployeeError::BadAge(age.to_string()))?;
        Ok(Employee { name: name.to_string(), age })
    }
}

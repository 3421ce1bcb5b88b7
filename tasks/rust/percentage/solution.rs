use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Percentage(u8);

impl Percentage {
    pub fn value(self) -> u8 {
        self.0
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum PercentageError {
    Negative(i32),
    TooLarge(i32),
}

impl fmt::Display for PercentageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PercentageError::Negative(value) => write!(f, "{value} is negative"),
            PercentageError::TooLarge(value) => write!(f, "{value} is above 100"),
        }
    }
}

impl std::error::Error for PercentageError {}

impl TryFrom<i32> for Percentage {
    type Error = PercentageError;

    fn try_from(value: i32) -> Result<Self, Self::Error> {
        match value {
            v if v < 0 => Err(PercentageError::Negative(v)),
            v if v > 100 => Err(PercentageError::TooLarge(v)),
            v => Ok(Percentage(v as u8)),
        }
    }
}

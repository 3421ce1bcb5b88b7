use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Time {
    pub hour: u32,
    pub minute: u32,
}

#[derive(Debug, PartialEq, Eq)]
pub enum TimeError {
    BadFormat,
    HourOutOfRange(u32),
    MinuteOutOfRange(u32),
}

impl fmt::Display for TimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeError::BadFormat => write!(f, "expected a time like HH:MM"),
            TimeError::HourOutOfRange(hour) => write!(f, "hour {hour} is not in 0-23"),
            TimeError::MinuteOutOfRange(minute) => write!(f, "minute {minute} is not in 0-59"),
        }
    }
}

impl std::error::Error for TimeError {}

pub fn parse_time(text: &str) -> Result<Time, TimeError> {
    let (hour, minute) = text.split_once(':').ok_or(TimeError::BadFormat)?;
    let hour: u32 = hour.parse().map_err(|_| TimeError::BadFormat)?;
    let minute: u32 = minute.parse().map_err(|_| TimeError::BadFormat)?;
    if hour > 23 {
        return Err(TimeError::HourOutOfRange(hour));
    }
    if minute > 59 {
        return Err(TimeError::MinuteOutOfRange(minute));
    }
    Ok(Time { hour, minute })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_times() {
        assert_eq!(parse_time("7:05"), Ok(Time { hour: 7, minute: 5 }));
        assert_eq!(parse_time("23:59"), Ok(Time { hour: 23, minute: 59 }));
        assert_eq!(parse_time("00:00"), Ok(Time { hour: 0, minute: 0 }));
    }

    #[test]
    fn bad_format() {
        assert_eq!(parse_time("1230"), Err(TimeError::BadFormat));
        assert_eq!(parse_time("ab:cd"), Err(TimeError::BadFormat));
        assert_eq!(parse_time("12:30:00"), Err(TimeError::BadFormat));
        assert_eq!(parse_time(""), Err(TimeError::BadFormat));
    }

    #[test]
    fn out_of_range() {
        assert_eq!(parse_time("24:00"), Err(TimeError::HourOutOfRange(24)));
        assert_eq!(parse_time("10:60"), Err(TimeError::MinuteOutOfRange(60)));
    }

    #[test]
    fn display_and_error_trait() {
        let err: Box<dyn std::error::Error> = Box::new(TimeError::HourOutOfRange(31));
        assert_eq!(err.to_string().contains("31"), true);
    }
}

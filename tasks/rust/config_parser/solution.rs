use std::collections::BTreeMap;
use std::fmt;

#[derive(Debug, PartialEq)]
pub enum ConfigError {
    MissingEquals { line: usize },
    InvalidValue { key: String, value: String },
    DuplicateKey(String),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::MissingEquals { line } => write!(f, "line {line}: expected key = value"),
            ConfigError::InvalidValue { key, value } => write!(f, "{key}: {value:?} is not a number 0-65535"),
            ConfigError::DuplicateKey(key) => write!(f, "{key} is set twice"),
        }
    }
}

impl std::error::Error for ConfigError {}

pub fn parse_config(text: &str) -> Result<BTreeMap<String, u16>, ConfigError> {
    let mut config = BTreeMap::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or(ConfigError::MissingEquals { line: index + 1 })?;
        let (key, value) = (key.trim(), value.trim());
        let number = value.parse::<u16>().map_err(|_| ConfigError::InvalidValue {
            key: key.to_string(),
            value: value.to_string(),
        })?;
        if config.insert(key.to_string(), number).is_some() {
            return Err(ConfigError::DuplicateKey(key.to_string()));
        }
    }
    Ok(config)
}

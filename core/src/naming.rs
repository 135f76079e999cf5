//! The spelling of option keys. Configuration types of the core (HTTP options, authorization)
//! use snake_case keys and accept their camelCase spelling, so each surface can write them in
//! its own idiom; errors name keys in snake_case and a binding respells them.

/// `max_body_bytes` → `maxBodyBytes`.
pub fn camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `maxBodyBytes` → `max_body_bytes` (snake_case keys are returned as they are).
pub fn snake_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Why [`read_options`] refused an object of options.
#[derive(Debug)]
pub(crate) enum OptionsError {
    /// The value is not a JSON object.
    NotObject,
    /// This key (snake_case) is bad, for this reason (the caller's `unknown` text when the
    /// type has no such key).
    Key(String, String),
    /// Every key is fine alone but not together.
    Whole(String),
}

/// Read a JSON object of options (either spelling; `null` is the same as leaving a key out)
/// into `T`, each key on its own first so that an error names the key it is about.
pub(crate) fn read_options<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
    unknown: &str,
) -> Result<T, OptionsError> {
    use serde_json::{Map, Value};
    let Value::Object(map) = value else {
        return Err(OptionsError::NotObject);
    };
    let map: Map<String, Value> = map.into_iter().filter(|(_, v)| !v.is_null()).collect();
    for (key, v) in &map {
        let one = Value::Object(Map::from_iter([(key.clone(), v.clone())]));
        if let Err(e) = serde_json::from_value::<T>(one) {
            let text = e.to_string();
            let message = if text.starts_with("unknown field") { unknown.to_owned() } else { text };
            return Err(OptionsError::Key(snake_case(key), message));
        }
    }
    serde_json::from_value(Value::Object(map)).map_err(|e| OptionsError::Whole(e.to_string()))
}

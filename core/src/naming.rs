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

//! Whether a client's accepted form answers the form it was shown. The spec has the client
//! validate its user's input against `requestedSchema`; a handler should not have to trust
//! that it did. A form is a flat object of restricted fields ([`super::elicit_schema`]), so
//! the check is a small one: no extra fields, every required field present, each value of its
//! field's type, in its enum or options, within its length, bounds and item counts. `format`
//! (email, uri, date, date-time) is a rendering hint clients treat differently and is not
//! checked.

use serde_json::{Map, Value};
use thiserror::Error;

/// Why an accepted answer does not fit its form.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("the accepted answer does not fit the requested form: {0}")]
pub struct ElicitAnswerError(pub String);

fn err<T>(message: String) -> Result<T, ElicitAnswerError> {
    Err(ElicitAnswerError(message))
}

/// Check `content` (an accepted answer) against `schema` (a form that passed
/// [`super::check_requested_schema`]).
pub fn check_answer(schema: &Value, content: &Map<String, Value>) -> Result<(), ElicitAnswerError> {
    let empty = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    if let Some(extra) = content.keys().find(|k| !properties.contains_key(*k)) {
        return err(format!("{extra:?} is not a field of the form"));
    }
    let required = schema.get("required").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if let Some(missing) = required.iter().filter_map(Value::as_str).find(|n| !content.contains_key(*n)) {
        return err(format!("the required field {missing:?} is missing"));
    }
    for (name, value) in content {
        if let Some(field) = properties.get(name).and_then(Value::as_object) {
            check_field(field, value)
                .map_err(|ElicitAnswerError(m)| ElicitAnswerError(format!("field {name:?}: {m}")))?;
        }
    }
    Ok(())
}

fn check_field(field: &Map<String, Value>, value: &Value) -> Result<(), ElicitAnswerError> {
    let ty = field.get("type").and_then(Value::as_str).unwrap_or("string");
    match ty {
        "string" => {
            let Some(s) = value.as_str() else { return err("must be a string".into()) };
            if let Some(options) = options(field.get("enum"), field.get("oneOf")) {
                if !options.contains(&s) {
                    return err(format!("{s:?} is not one of the options"));
                }
            }
            let len = s.chars().count() as u64;
            within(len, field.get("minLength"), field.get("maxLength"), "characters")
        }
        "integer" if !(value.is_i64() || value.is_u64()) => err("must be an integer".into()),
        "number" | "integer" => {
            let Some(n) = value.as_f64() else { return err("must be a number".into()) };
            if field.get("minimum").and_then(Value::as_f64).is_some_and(|m| n < m) {
                return err(format!("{n} is below the minimum"));
            }
            if field.get("maximum").and_then(Value::as_f64).is_some_and(|m| n > m) {
                return err(format!("{n} is above the maximum"));
            }
            Ok(())
        }
        "boolean" if value.is_boolean() => Ok(()),
        "boolean" => err("must be a boolean".into()),
        "array" => {
            let Some(items) = value.as_array() else { return err("must be an array of the options".into()) };
            let schema = field.get("items");
            let allowed = options(schema.and_then(|i| i.get("enum")), schema.and_then(|i| i.get("anyOf")));
            for item in items {
                match (item.as_str(), &allowed) {
                    (Some(s), Some(opts)) if !opts.contains(&s) => {
                        return err(format!("{s:?} is not one of the options"))
                    }
                    (Some(_), _) => {}
                    (None, _) => return err("must be an array of the options".into()),
                }
            }
            within(items.len() as u64, field.get("minItems"), field.get("maxItems"), "items")
        }
        _ => Ok(()),
    }
}

/// The values an enum field allows: `enum`, or the `const`s of titled `oneOf`/`anyOf` options.
fn options<'a>(plain: Option<&'a Value>, titled: Option<&'a Value>) -> Option<Vec<&'a str>> {
    if let Some(e) = plain.and_then(Value::as_array) {
        return Some(e.iter().filter_map(Value::as_str).collect());
    }
    titled.and_then(Value::as_array).map(|o| o.iter().filter_map(|o| o.get("const")?.as_str()).collect())
}

fn within(n: u64, min: Option<&Value>, max: Option<&Value>, what: &str) -> Result<(), ElicitAnswerError> {
    if let Some(m) = min.and_then(Value::as_u64).filter(|m| n < *m) {
        return err(format!("{n} {what}, fewer than the {m} asked"));
    }
    if let Some(m) = max.and_then(Value::as_u64).filter(|m| n > *m) {
        return err(format!("{n} {what}, more than the {m} allowed"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 2, "maxLength": 5},
                "age": {"type": "integer", "minimum": 0, "maximum": 150},
                "score": {"type": "number"},
                "ok": {"type": "boolean"},
                "plan": {"type": "string", "enum": ["basic", "pro"]},
                "tier": {"oneOf": [{"const": "a", "title": "A"}]},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "maxItems": 1}
            },
            "required": ["name"]
        })
    }

    fn check(content: Value) -> Result<(), String> {
        check_answer(&form(), content.as_object().expect("an object")).map_err(|e| e.0)
    }

    #[test]
    fn a_fitting_answer_passes() {
        let all =
            json!({"name": "Ada", "age": 36, "score": 1.5, "ok": true, "plan": "pro", "tier": "a", "tags": ["y"]});
        assert_eq!(check(all), Ok(()));
        assert_eq!(check(json!({"name": "Al"})), Ok(()));
    }

    #[test]
    fn each_rule_names_the_field_and_what_is_wrong() {
        let cases = [
            (json!({}), "the required field \"name\" is missing"),
            (json!({"name": "Ada", "extra": 1}), "\"extra\" is not a field of the form"),
            (json!({"name": 3}), "field \"name\": must be a string"),
            (json!({"name": "A"}), "field \"name\": 1 characters, fewer than the 2 asked"),
            (json!({"name": "Adalbert"}), "field \"name\": 8 characters, more than the 5 allowed"),
            (json!({"name": "Ada", "age": 1.5}), "field \"age\": must be an integer"),
            (json!({"name": "Ada", "age": -1}), "field \"age\": -1 is below the minimum"),
            (json!({"name": "Ada", "age": 200}), "field \"age\": 200 is above the maximum"),
            (json!({"name": "Ada", "score": "high"}), "field \"score\": must be a number"),
            (json!({"name": "Ada", "ok": "yes"}), "field \"ok\": must be a boolean"),
            (json!({"name": "Ada", "plan": "gold"}), "field \"plan\": \"gold\" is not one of the options"),
            (json!({"name": "Ada", "tier": "b"}), "field \"tier\": \"b\" is not one of the options"),
            (json!({"name": "Ada", "tags": ["z"]}), "field \"tags\": \"z\" is not one of the options"),
            (json!({"name": "Ada", "tags": ["x", "y"]}), "field \"tags\": 2 items, more than the 1 allowed"),
            (json!({"name": "Ada", "tags": "x"}), "field \"tags\": must be an array of the options"),
        ];
        for (content, want) in cases {
            assert_eq!(check(content.clone()), Err(want.to_owned()), "{content}");
        }
    }
}

//! What an elicitation form may ask: the spec restricts `requestedSchema` to a flat object of
//! primitive properties (string, with an optional format; number; integer; boolean), enums
//! (an `enum`, the legacy `enumNames`, titled `oneOf` of `{const, title}`) and multi-select
//! arrays of those (SEP-1330), each with an optional default of its own type. Clients render
//! only that, so a schema outside it is a bug in the server: the core refuses it before sending
//! and names the property and the rule, rather than letting a client fail or show half a form.
//!
//! Also [`normalize`]: a schema generated from a type (schemars, pydantic, zod) says "string or
//! null" for an optional field and carries a root `$schema`/`title`; the restricted form says
//! neither, so those are rewritten first.

use serde_json::{Map, Value};

/// Why a requested schema is not one an elicitation may send.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid elicitation schema: {0}")]
pub struct ElicitSchemaError(pub String);

const FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];
/// Keywords that would make the form something other than a flat list of fields.
const STRUCTURAL: [&str; 12] = [
    "$ref",
    "properties",
    "additionalProperties",
    "patternProperties",
    "allOf",
    "anyOf",
    "not",
    "if",
    "then",
    "else",
    "$defs",
    "definitions",
];

fn err<T>(message: String) -> Result<T, ElicitSchemaError> {
    Err(ElicitSchemaError(message))
}

/// Check `schema` against the spec's restrictions.
pub fn check_requested_schema(schema: &Value) -> Result<(), ElicitSchemaError> {
    let Some(root) = schema.as_object() else {
        return err("requestedSchema must be a JSON object".into());
    };
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return err("requestedSchema must have \"type\": \"object\"".into());
    }
    let empty = Map::new();
    let properties = match root.get("properties") {
        None => &empty,
        Some(Value::Object(p)) => p,
        Some(_) => return err("requestedSchema.properties must be an object".into()),
    };
    for key in ["$ref", "allOf", "anyOf", "oneOf", "patternProperties", "if", "not"] {
        if root.contains_key(key) {
            return err(format!("requestedSchema may not use {key:?}: a form is a flat list of fields"));
        }
    }
    for (name, property) in properties {
        check_property(name, property)
            .map_err(|ElicitSchemaError(m)| ElicitSchemaError(format!("property {name:?}: {m}")))?;
    }
    match root.get("required") {
        None => {}
        Some(Value::Array(names)) => {
            for n in names {
                match n.as_str() {
                    Some(n) if properties.contains_key(n) => {}
                    Some(n) => return err(format!("required names {n:?}, which is not a property")),
                    None => return err("required must be an array of property names".into()),
                }
            }
        }
        Some(_) => return err("required must be an array of property names".into()),
    }
    Ok(())
}

fn check_property(name: &str, p: &Value) -> Result<(), ElicitSchemaError> {
    let _ = name;
    let Some(p) = p.as_object() else {
        return err("must be a schema object".into());
    };
    if let Some(k) = STRUCTURAL.iter().find(|k| p.contains_key(**k)) {
        return err(format!("{k:?} is not allowed: fields are primitives, enums or multi-select arrays, never nested"));
    }
    let ty = match p.get("type") {
        Some(Value::String(t)) => t.as_str(),
        None if p.contains_key("oneOf") || p.contains_key("enum") => "string",
        Some(_) => return err("\"type\" must be one string (an optional field is one that is not required)".into()),
        None => return err("\"type\" is missing".into()),
    };
    match ty {
        "string" => check_string(p),
        "number" | "integer" => {
            if p.contains_key("enum") || p.contains_key("oneOf") {
                return err(format!("an enum is a list of strings; a {ty} field cannot be one"));
            }
            for k in ["minimum", "maximum"] {
                if p.get(k).is_some_and(|v| !v.is_number()) {
                    return err(format!("{k} must be a number"));
                }
            }
            let ok = |v: &Value| if ty == "integer" { v.is_i64() || v.is_u64() } else { v.is_number() };
            check_default(p, ty, ok)
        }
        "boolean" => check_default(p, "boolean", Value::is_boolean),
        "array" => check_multi_select(p),
        "object" => err("nested objects are not allowed in a form".into()),
        other => err(format!("type {other:?} is not one a form can ask for (string, number, integer, boolean, array)")),
    }
}

fn strings(v: &Value) -> Option<Vec<&str>> {
    v.as_array()?.iter().map(Value::as_str).collect()
}

/// `[{const: string, title: string}, ...]`: the titled options of SEP-1330.
fn titled_options(v: &Value, what: &str) -> Result<Vec<String>, ElicitSchemaError> {
    let Some(items) = v.as_array().filter(|a| !a.is_empty()) else {
        return err(format!("{what} must be a non-empty array of {{const, title}}"));
    };
    items
        .iter()
        .map(|o| match (o.get("const").and_then(Value::as_str), o.get("title").and_then(Value::as_str)) {
            (Some(c), Some(_)) => Ok(c.to_owned()),
            _ => err(format!("every option in {what} needs a string const and a string title")),
        })
        .collect()
}

fn check_string(p: &Map<String, Value>) -> Result<(), ElicitSchemaError> {
    for k in ["minLength", "maxLength"] {
        if p.get(k).is_some_and(|v| !v.is_u64()) {
            return err(format!("{k} must be a non-negative integer"));
        }
    }
    if let Some(f) = p.get("format") {
        match f.as_str() {
            Some(f) if FORMATS.contains(&f) => {}
            _ => return err(format!("format must be one of {}", FORMATS.join(", "))),
        }
    }
    let options: Option<Vec<String>> = match (p.get("enum"), p.get("oneOf")) {
        (Some(_), Some(_)) => return err("use enum or oneOf, not both".into()),
        (Some(e), None) => {
            let values = strings(e)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| ElicitSchemaError("enum must be a non-empty array of strings".into()))?;
            if let Some(names) = p.get("enumNames") {
                match strings(names) {
                    Some(n) if n.len() == values.len() => {}
                    _ => return err("enumNames must be strings, one per enum value".into()),
                }
            }
            Some(values.into_iter().map(str::to_owned).collect())
        }
        (None, Some(o)) => Some(titled_options(o, "oneOf")?),
        (None, None) => None,
    };
    match (p.get("default"), options) {
        (None, _) => Ok(()),
        (Some(Value::String(d)), Some(opts)) if !opts.contains(d) => {
            err(format!("default {d:?} is not one of the options"))
        }
        (Some(Value::String(_)), _) => Ok(()),
        (Some(_), _) => err("default must be a string".into()),
    }
}

fn check_default(p: &Map<String, Value>, ty: &str, ok: impl Fn(&Value) -> bool) -> Result<(), ElicitSchemaError> {
    match p.get("default") {
        Some(d) if !ok(d) => err(format!("default must be of type {ty}")),
        _ => Ok(()),
    }
}

fn check_multi_select(p: &Map<String, Value>) -> Result<(), ElicitSchemaError> {
    let Some(items) = p.get("items").and_then(Value::as_object) else {
        return err("an array field needs items: {type: string, enum: [...]} or {anyOf: [{const, title}]}".into());
    };
    let options: Vec<String> = match (items.get("enum"), items.get("anyOf")) {
        (Some(e), None) if items.get("type").and_then(Value::as_str) == Some("string") => strings(e)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| ElicitSchemaError("items.enum must be a non-empty array of strings".into()))?
            .into_iter()
            .map(str::to_owned)
            .collect(),
        (None, Some(a)) => titled_options(a, "items.anyOf")?,
        _ => {
            return err(
                "an array field is a multi-select: items {type: string, enum: [...]} or {anyOf: [{const, title}]}"
                    .into(),
            )
        }
    };
    for k in ["minItems", "maxItems"] {
        if p.get(k).is_some_and(|v| !v.is_u64()) {
            return err(format!("{k} must be a non-negative integer"));
        }
    }
    match p.get("default") {
        None => Ok(()),
        Some(d) => match strings(d) {
            Some(vals) if vals.iter().all(|v| options.iter().any(|o| o == v)) => Ok(()),
            _ => err("default must be an array of the options".into()),
        },
    }
}

/// Rewrite a schema generated from a type into the restricted form where that is only a matter
/// of spelling: drop the root `$schema` and `title`, put a field's local `$ref` (an enum type
/// a generator lifts into `$defs`) in place, and turn `"type": ["T", "null"]` (an optional
/// field) into `"type": "T"`. Anything else (a nested struct stays an object) is left for
/// [`check_requested_schema`] to judge.
pub fn normalize(mut schema: Value) -> Value {
    if let Some(root) = schema.as_object_mut() {
        root.remove("$schema");
        root.remove("title");
        let defs = root.remove("$defs").or_else(|| root.remove("definitions"));
        if let Some(Value::Object(props)) = root.get_mut("properties") {
            for p in props.values_mut() {
                unwrap_nullable(p);
                inline_ref(p, defs.as_ref());
                if let Some(Value::Array(types)) = p.get("type") {
                    let non_null: Vec<&Value> = types.iter().filter(|t| t.as_str() != Some("null")).collect();
                    if let [only] = non_null.as_slice() {
                        let only = (*only).clone();
                        p["type"] = only;
                    }
                }
            }
        }
    }
    schema
}

/// `{anyOf: [S, {type: "null"}], default: null, ...}` (how pydantic and zod spell an optional
/// field) becomes S with the field's own keywords; a `null` default goes (an optional field has
/// no default).
fn unwrap_nullable(field: &mut Value) {
    let Some(f) = field.as_object_mut() else { return };
    if f.get("default").is_some_and(Value::is_null) {
        f.remove("default");
    }
    let Some(Value::Array(options)) = f.get("anyOf") else { return };
    let non_null: Vec<&Value> =
        options.iter().filter(|o| o.get("type").and_then(Value::as_str) != Some("null")).collect();
    let [only] = non_null.as_slice() else { return };
    if non_null.len() == options.len() {
        return;
    }
    let mut merged = match (*only).clone() {
        Value::Object(m) => m,
        _ => return,
    };
    for (k, v) in f.iter().filter(|(k, _)| k.as_str() != "anyOf") {
        merged.insert(k.clone(), v.clone());
    }
    *field = Value::Object(merged);
}

/// Replace `{"$ref": "#/$defs/X", ...}` with the definition of X (the field's own keywords,
/// such as its description, win).
fn inline_ref(field: &mut Value, defs: Option<&Value>) {
    let Some(name) = field
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/").or_else(|| r.strip_prefix("#/definitions/")))
    else {
        return;
    };
    let Some(Value::Object(def)) = defs.and_then(|d| d.get(name)) else {
        return;
    };
    let mut merged = def.clone();
    merged.remove("title");
    if let Some(f) = field.as_object() {
        for (k, v) in f.iter().filter(|(k, _)| k.as_str() != "$ref") {
            merged.insert(k.clone(), v.clone());
        }
    }
    *field = Value::Object(merged);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(props: Value) {
        let s = json!({"type": "object", "properties": props});
        assert_eq!(check_requested_schema(&s), Ok(()), "{s}");
    }

    fn bad(props: Value, needle: &str) {
        let s = json!({"type": "object", "properties": props});
        let e = check_requested_schema(&s).expect_err(&s.to_string()).0;
        assert!(e.contains(needle), "{e:?} should mention {needle:?}");
    }

    #[test]
    fn the_primitives_with_their_defaults_pass() {
        ok(json!({
            "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 40, "default": "Ada"},
            "email": {"type": "string", "format": "email"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
            "score": {"type": "number", "default": 95.5},
            "ok": {"type": "boolean", "default": true},
        }));
    }

    #[test]
    fn the_sep_1330_enum_forms_pass() {
        ok(json!({
            "plain": {"type": "string", "enum": ["a", "b"], "default": "a"},
            "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
            "titled": {"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
            "multi": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "minItems": 1, "default": ["x"]},
            "titledMulti": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}, "maxItems": 1},
        }));
    }

    #[test]
    fn each_restriction_has_its_error() {
        bad(
            json!({"address": {"type": "object", "properties": {"city": {"type": "string"}}}}),
            "\"properties\" is not allowed",
        );
        bad(json!({"nested": {"type": "object"}}), "nested objects are not allowed");
        bad(json!({"x": {"$ref": "#/$defs/X"}}), "\"$ref\" is not allowed");
        bad(json!({"x": {"type": ["string", "null"]}}), "must be one string");
        bad(json!({"x": {"type": "null"}}), "not one a form can ask for");
        bad(json!({"x": {"type": "string", "format": "phone"}}), "format must be one of");
        bad(json!({"x": {"type": "string", "enum": []}}), "enum must be a non-empty array");
        bad(json!({"x": {"type": "string", "enum": ["a"], "enumNames": ["A", "B"]}}), "one per enum value");
        bad(json!({"x": {"type": "string", "enum": ["a"], "default": "b"}}), "not one of the options");
        bad(json!({"x": {"type": "string", "oneOf": [{"const": "a"}]}}), "needs a string const and a string title");
        bad(json!({"x": {"type": "integer", "default": 1.5}}), "default must be of type integer");
        bad(json!({"x": {"type": "boolean", "default": "yes"}}), "default must be of type boolean");
        bad(json!({"x": {"type": "array", "items": {"type": "integer"}}}), "multi-select");
        bad(
            json!({"x": {"type": "array", "items": {"type": "string", "enum": ["a"]}, "default": ["z"]}}),
            "default must be an array of the options",
        );
        assert!(check_requested_schema(&json!({"type": "array"})).unwrap_err().0.contains("\"type\": \"object\""));
        let bad_required = json!({"type": "object", "properties": {}, "required": ["ghost"]});
        assert!(check_requested_schema(&bad_required).unwrap_err().0.contains("\"ghost\""));
    }

    #[test]
    fn normalize_unwraps_the_any_of_spelling_of_an_optional_field() {
        let pydantic = json!({
            "type": "object",
            "$defs": {"Plan": {"type": "string", "enum": ["basic", "pro"], "title": "Plan"}},
            "properties": {
                "age": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "description": "Age"},
                "plan": {"anyOf": [{"$ref": "#/$defs/Plan"}, {"type": "null"}], "default": null},
                "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            },
        });
        let n = normalize(pydantic);
        assert_eq!(n["properties"]["age"], json!({"type": "integer", "description": "Age"}));
        assert_eq!(n["properties"]["plan"], json!({"type": "string", "enum": ["basic", "pro"]}));
        assert!(n["properties"]["either"].get("anyOf").is_some(), "a real union is left for the check to refuse");
        assert!(check_requested_schema(&n).unwrap_err().0.contains("property \"either\""));
    }

    #[test]
    fn a_number_enum_is_refused() {
        bad(json!({"level": {"type": "integer", "enum": [1, 2, 3]}}), "an enum is a list of strings");
    }

    #[test]
    fn normalize_spells_optional_fields_the_restricted_way() {
        let generated = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Contact",
            "type": "object",
            "properties": {"nick": {"type": ["string", "null"]}, "name": {"type": "string"}},
            "required": ["name"],
        });
        let n = normalize(generated);
        assert_eq!(
            n,
            json!({"type": "object", "properties": {"nick": {"type": "string"}, "name": {"type": "string"}}, "required": ["name"]})
        );
        assert_eq!(check_requested_schema(&n), Ok(()));
    }
}

//! Matching URIs against RFC 6570 templates, to route `resources/read` to a template reader.
//!
//! The URI-template crates on the registry expand templates (variables to URI); a server
//! needs the inverse (URI to variables), which none of them offers, so this is a small
//! matcher for the expression kinds resource templates use: `{var}`, `{+var}`, `{#var}`,
//! `{/var}`, `{.var}`, `{?a,b}` and `{&a}`.

use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Literal(String),
    Expr { op: Option<char>, vars: Vec<String> },
}

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

/// A template that does not parse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid URI template {template:?}: {reason}")]
pub struct TemplateError {
    /// The template.
    pub template: String,
    /// What is wrong.
    pub reason: String,
}

impl UriTemplate {
    /// Parse a template.
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        let err = |reason: &str| TemplateError { template: template.to_owned(), reason: reason.to_owned() };
        let mut parts = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            match rest.find('{') {
                Some(0) => {
                    let end = rest.find('}').ok_or_else(|| err("unclosed '{'"))?;
                    let body = &rest[1..end];
                    let (op, names) = match body.chars().next() {
                        Some(c @ ('+' | '#' | '/' | '.' | '?' | '&' | ';')) => (Some(c), &body[1..]),
                        _ => (None, body),
                    };
                    let vars: Vec<String> = names
                        .split(',')
                        .map(|v| v.trim_end_matches('*').split(':').next().unwrap_or("").to_owned())
                        .collect();
                    if vars
                        .iter()
                        .any(|v| v.is_empty() || !v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                    {
                        return Err(err("bad variable name"));
                    }
                    parts.push(Part::Expr { op, vars });
                    rest = &rest[end + 1..];
                }
                Some(i) => {
                    parts.push(Part::Literal(rest[..i].to_owned()));
                    rest = &rest[i..];
                }
                None => {
                    if rest.contains('}') {
                        return Err(err("unmatched '}'"));
                    }
                    parts.push(Part::Literal(rest.to_owned()));
                    rest = "";
                }
            }
        }
        Ok(UriTemplate { source: template.to_owned(), parts })
    }

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in order.
    pub fn variables(&self) -> Vec<&str> {
        self.parts
            .iter()
            .flat_map(|p| match p {
                Part::Expr { vars, .. } => vars.iter().map(String::as_str).collect(),
                Part::Literal(_) => Vec::new(),
            })
            .collect()
    }

    /// Match `uri`, returning the captured variables (percent-decoded).
    pub fn match_uri(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut out = BTreeMap::new();
        if match_parts(&self.parts, uri, &mut out) {
            Some(out)
        } else {
            None
        }
    }
}

fn stop_chars(op: Option<char>) -> &'static [char] {
    match op {
        None => &['/', '?', '#', '&', ','],
        Some('+') | Some('#') => &[],
        Some('/') => &['/', '?', '#'],
        Some('.') => &['.', '/', '?', '#'],
        Some('?') | Some('&') | Some(';') => &['&', '#', ';'],
        _ => &[],
    }
}

fn match_parts(parts: &[Part], input: &str, out: &mut BTreeMap<String, String>) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return input.is_empty();
    };
    match first {
        Part::Literal(lit) => input.strip_prefix(lit.as_str()).is_some_and(|tail| match_parts(rest, tail, out)),
        Part::Expr { op, vars } => match op {
            Some('?') | Some('&') => {
                // Query expressions: take the query up to a fragment, read name=value pairs.
                let lead = if *op == Some('?') { '?' } else { '&' };
                let Some(body) = input.strip_prefix(lead) else {
                    // All query variables are optional.
                    return match_parts(rest, input, out);
                };
                let end = body.find('#').unwrap_or(body.len());
                let (query, tail) = body.split_at(end);
                let mut found = BTreeMap::new();
                for pair in query.split('&') {
                    if let Some((k, v)) = pair.split_once('=') {
                        if vars.iter().any(|n| n == k) {
                            found.insert(k.to_owned(), percent_decode(v));
                        }
                    }
                }
                let mut trial = out.clone();
                trial.extend(found);
                if match_parts(rest, tail, &mut trial) {
                    *out = trial;
                    true
                } else {
                    false
                }
            }
            _ => {
                let prefix = match op {
                    Some('#') => Some('#'),
                    Some('/') => Some('/'),
                    Some('.') => Some('.'),
                    Some(';') => Some(';'),
                    _ => None,
                };
                let body = match prefix {
                    Some(p) => match input.strip_prefix(p) {
                        Some(b) => b,
                        None => return false,
                    },
                    None => input,
                };
                let stops = stop_chars(*op);
                let limit = body.find(|c| stops.contains(&c)).unwrap_or(body.len());
                // Try the longest capture first, then shorter ones (backtracking).
                let candidates: Vec<usize> =
                    body[..limit].char_indices().map(|(i, _)| i).skip(1).chain(std::iter::once(limit)).collect();
                for &end in candidates.iter().rev() {
                    let value = &body[..end];
                    if value.is_empty() {
                        continue;
                    }
                    let mut trial = out.clone();
                    if vars.len() == 1 {
                        trial.insert(vars[0].clone(), percent_decode(value));
                    } else {
                        let pieces: Vec<&str> = value.split(',').collect();
                        if pieces.len() != vars.len() {
                            continue;
                        }
                        for (n, v) in vars.iter().zip(pieces) {
                            trial.insert(n.clone(), percent_decode(v));
                        }
                    }
                    if match_parts(rest, &body[end..], &mut trial) {
                        *out = trial;
                        return true;
                    }
                }
                false
            }
        },
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(t).unwrap().match_uri(uri).map(|m| m.into_iter().collect())
    }

    #[test]
    fn simple_variable_captures_one_segment() {
        assert_eq!(m("test://template/{id}/data", "test://template/42/data"), Some(vec![("id".into(), "42".into())]));
        assert_eq!(m("test://template/{id}/data", "test://template/4/2/data"), None);
        assert_eq!(m("test://template/{id}/data", "test://template//data"), None);
        assert_eq!(m("test://template/{id}/data", "test://other/42/data"), None);
    }

    #[test]
    fn reserved_expansion_spans_slashes() {
        assert_eq!(m("file:///{+path}", "file:///a/b/c.txt"), Some(vec![("path".into(), "a/b/c.txt".into())]));
    }

    #[test]
    fn several_variables_and_decoding() {
        assert_eq!(
            m("db://{table}/{id}", "db://users/a%20b"),
            Some(vec![("id".into(), "a b".into()), ("table".into(), "users".into())])
        );
        assert_eq!(m("x://{a}{/b}", "x://one/two"), Some(vec![("a".into(), "one".into()), ("b".into(), "two".into())]));
    }

    #[test]
    fn query_variables() {
        assert_eq!(
            m("search://items{?q,limit}", "search://items?q=rust&limit=5"),
            Some(vec![("limit".into(), "5".into()), ("q".into(), "rust".into())])
        );
        assert_eq!(m("search://items{?q}", "search://items"), Some(vec![]));
    }

    #[test]
    fn bad_templates_are_errors() {
        assert!(UriTemplate::parse("x://{unclosed").is_err());
        assert!(UriTemplate::parse("x://{}").is_err());
        assert!(UriTemplate::parse("x://a}").is_err());
    }
}

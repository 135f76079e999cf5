//! Matching URIs against RFC 6570 templates, to route `resources/read` to a template reader.
//!
//! The URI-template crates on the registry expand templates (variables to URI); a server
//! needs the inverse (URI to variables), which none of them offers, so this is a small
//! matcher for the expression kinds resource templates use: `{var}`, `{+var}`, `{#var}`,
//! `{/var}`, `{.var}`, `{?a,b}` and `{&a}`.

use std::collections::{BTreeMap, HashSet};

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
    ///
    /// Positions are found first, each (part, offset) state tried at most once, and within a
    /// budget of [`MATCH_BUDGET`] steps (a URI that would need more, against adjacent
    /// variables, does not match); values are decoded only along the match. So a peer's URI
    /// costs time linear in its length for the templates servers declare, never quadratic.
    pub fn match_uri(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut m = Matcher { parts: &self.parts, input: uri, failed: HashSet::new(), steps: 0, spans: Vec::new() };
        if !m.solve(0, 0) {
            return None;
        }
        let mut out = BTreeMap::new();
        for span in m.spans {
            match span {
                Span::Values { part, start, end } => {
                    let Some(Part::Expr { vars, .. }) = self.parts.get(part) else { continue };
                    let value = &uri[start..end];
                    if vars.len() == 1 {
                        out.insert(vars[0].clone(), percent_decode(value));
                    } else {
                        for (n, v) in vars.iter().zip(value.split(',')) {
                            out.insert(n.clone(), percent_decode(v));
                        }
                    }
                }
                Span::Query { part, start, end } => {
                    let Some(Part::Expr { vars, .. }) = self.parts.get(part) else { continue };
                    for pair in uri[start..end].split('&') {
                        if let Some((k, v)) = pair.split_once('=') {
                            if vars.iter().any(|n| n == k) {
                                out.insert(k.to_owned(), percent_decode(v));
                            }
                        }
                    }
                }
            }
        }
        Some(out)
    }
}

/// The most matching steps one URI may take (each a candidate position tried once).
pub const MATCH_BUDGET: usize = 1_000_000;

/// Where a part's values lie in the URI, found by [`Matcher::solve`].
enum Span {
    /// A simple or prefixed expression's value (comma-separated for several variables).
    Values { part: usize, start: usize, end: usize },
    /// A query expression's `name=value` pairs.
    Query { part: usize, start: usize, end: usize },
}

struct Matcher<'a> {
    parts: &'a [Part],
    input: &'a str,
    /// (part, offset) states known not to match.
    failed: HashSet<(usize, usize)>,
    steps: usize,
    /// The spans of the match being tried, in order.
    spans: Vec<Span>,
}

impl Matcher<'_> {
    /// Whether parts `pi..` match the input from byte `pos`; on success `spans` holds the
    /// values of the match.
    fn solve(&mut self, pi: usize, pos: usize) -> bool {
        if self.failed.contains(&(pi, pos)) {
            return false;
        }
        self.steps += 1;
        if self.steps > MATCH_BUDGET {
            return false;
        }
        let ok = self.try_part(pi, pos);
        if !ok {
            self.failed.insert((pi, pos));
        }
        ok
    }

    fn try_part(&mut self, pi: usize, pos: usize) -> bool {
        let input = self.input;
        let Some(part) = self.parts.get(pi) else {
            return pos == input.len();
        };
        let here = &input[pos..];
        match part {
            Part::Literal(lit) => here.starts_with(lit.as_str()) && self.solve(pi + 1, pos + lit.len()),
            Part::Expr { op: op @ (Some('?') | Some('&')), .. } => {
                // Query expressions: the query up to a fragment, read as name=value pairs.
                let lead = if *op == Some('?') { '?' } else { '&' };
                let Some(body) = here.strip_prefix(lead) else {
                    // All query variables are optional.
                    return self.solve(pi + 1, pos);
                };
                let start = pos + 1;
                let end = start + body.find('#').unwrap_or(body.len());
                self.spans.push(Span::Query { part: pi, start, end });
                if self.solve(pi + 1, end) {
                    return true;
                }
                self.spans.pop();
                false
            }
            Part::Expr { op, vars } => {
                let start = match op {
                    Some(p @ ('#' | '/' | '.' | ';')) => match here.strip_prefix(*p) {
                        Some(_) => pos + 1,
                        None => return false,
                    },
                    _ => pos,
                };
                let body = &input[start..];
                let stops = stop_chars(*op);
                let limit = body.find(|c| stops.contains(&c)).unwrap_or(body.len());
                // The literal that must follow, when one does: only ends where it starts.
                let next_lit = match self.parts.get(pi + 1) {
                    Some(Part::Literal(l)) if !l.is_empty() => Some(l.as_str()),
                    _ => None,
                };
                // Longest capture first, then shorter ones (backtracking).
                let ends: Vec<usize> =
                    body[..limit].char_indices().map(|(i, _)| i).skip(1).chain(std::iter::once(limit)).collect();
                // Commas in body[..end], kept as `end` moves down (several variables split on
                // them).
                let mut commas = body[..limit].matches(',').count();
                let mut previous = limit;
                for &end in ends.iter().rev() {
                    commas -= body[end..previous].matches(',').count();
                    previous = end;
                    self.steps += 1;
                    if self.steps > MATCH_BUDGET {
                        return false;
                    }
                    if end == 0 || next_lit.is_some_and(|l| !body[end..].starts_with(l)) {
                        continue;
                    }
                    if vars.len() > 1 && commas + 1 != vars.len() {
                        continue;
                    }
                    self.spans.push(Span::Values { part: pi, start, end: start + end });
                    if self.solve(pi + 1, start + end) {
                        return true;
                    }
                    self.spans.pop();
                }
                false
            }
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
    fn long_uris_match_in_linear_time_and_adjacent_variables_within_the_budget() {
        // The fuzzer's finds: a long value against one variable (quadratic before: minutes for
        // this one), and adjacent variables (exponential before). The fuzz seeds
        // `regression-*` (scripts/fuzz.sh, 10 s per input) pin the time; this pins the answers.
        let long = format!("test://template/{}", "a".repeat(200_000));
        assert_eq!(m("test://template/{id}/data", &long), None);
        let with_data = format!("{long}/data");
        assert_eq!(m("test://template/{id}/data", &with_data).map(|v| v[0].1.len()), Some(200_000));
        let adjacent = format!("x://{}", "b".repeat(5_000));
        let found = m("x://{a}{b}{c}{d}/end", &adjacent);
        assert_eq!(found, None);
        assert_eq!(
            m("x://{a}{b}", "x://xy"),
            Some(vec![("a".into(), "x".into()), ("b".into(), "y".into())]),
            "still a match where one exists (longest first)"
        );
    }

    #[test]
    fn bad_templates_are_errors() {
        assert!(UriTemplate::parse("x://{unclosed").is_err());
        assert!(UriTemplate::parse("x://{}").is_err());
        assert!(UriTemplate::parse("x://a}").is_err());
    }
}

//! URI templates (`server::uri_template`): `UriTemplate::parse` on a template and
//! `match_uri` of a URI against it, as `resources/read` does for every registered template.
//!
//! Input: the template, a newline, the URI. Invariants: a parsed template keeps its text; a
//! match captures only the template's variables; matching is deterministic.
#![no_main]

use ferrite_core::server::uri_template::UriTemplate;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (template, uri) = text.split_once('\n').unwrap_or((text, ""));
    let Ok(t) = UriTemplate::parse(template) else { return };
    assert_eq!(t.as_str(), template);
    let variables = t.variables();
    let first = t.match_uri(uri);
    if let Some(captured) = &first {
        for name in captured.keys() {
            assert!(variables.contains(&name.as_str()), "{name:?} is not a variable of {template:?}");
        }
    }
    assert_eq!(first, t.match_uri(uri), "matching {uri:?} against {template:?} is not deterministic");
    // The template's own text, matched against itself, never panics either.
    let _ = t.match_uri(template);
});

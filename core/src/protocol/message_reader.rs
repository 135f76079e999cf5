//! A reader for one JSON-RPC message in the shapes clients send, straight into the
//! envelope's fields.
//!
//! serde_json reads a 2026-07-28 request's 200-byte `_meta` at about 12 instructions a byte
//! through its visitors, which made the envelope path cost 1.23x the handshake path on the
//! stdio `add` (bench/README, "The per-request envelope"). This reader builds the same values
//! in one pass over the bytes: strings are found eight bytes at a time, object keys are
//! borrowed, `clientInfo` is validated without being built, and the envelope's keys land in
//! [`RequestMeta`] directly.
//!
//! It reads a subset of JSON and gives up (`None`) on everything else: malformed text, a
//! repeated envelope key, a float's edge cases, nesting over [`MAX_DEPTH`], a `_meta` that is
//! not an object. The caller then takes serde_json's path, which yields the precise error or
//! the same message. Where it answers, it answers exactly what that path would (held to it by
//! `core/tests/message_reader_props.rs`).

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

use super::jsonrpc::{CompactJson, Envelope, ParamsField};
use super::model::{
    RequestMeta, VersionField, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, LOG_LEVEL_KEY, PROTOCOL_VERSION_KEY,
};
use super::ProtocolVersion;

/// The deepest nesting this reader follows; deeper text is left to serde_json and its limit.
const MAX_DEPTH: u32 = 64;

/// Read `text` (one JSON object, leading whitespace already trimmed) as a message's
/// envelope, or `None` when it is not in the subset this reader takes.
pub(super) fn read_message(text: &str) -> Option<Envelope> {
    let mut r = Reader { s: text, b: text.as_bytes(), i: 0, depth: 0 };
    let env = r.envelope()?;
    r.ws();
    (r.i == r.b.len()).then_some(env)
}

struct Reader<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    depth: u32,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

impl<'a> Reader<'a> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    #[inline]
    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek() == Some(c)).then(|| self.i += 1)
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// An object: `member` is called with each key, the reader on its value, and must read
    /// the value.
    fn object(&mut self, member: impl FnMut(&mut Self, Cow<'a, str>) -> Option<()>) -> Option<()> {
        self.object_keyed(Self::string, member)
    }

    /// An object whose keys are read by `key`.
    #[inline]
    fn object_keyed(
        &mut self,
        mut key: impl FnMut(&mut Self) -> Option<Cow<'a, str>>,
        mut member: impl FnMut(&mut Self, Cow<'a, str>) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        self.enter()?;
        self.ws();
        if self.eat(b'}').is_none() {
            loop {
                let key = key(self)?;
                self.ws();
                self.eat(b':')?;
                self.ws();
                member(self, key)?;
                if !self.more_before(b'}')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        Some(())
    }

    /// After a member or element: `,` (and the whitespace after it) means another follows
    /// (`true`), `close` ends the container (`false`), anything else is not this reader's.
    #[inline]
    fn more_before(&mut self, close: u8) -> Option<bool> {
        self.ws();
        match self.peek()? {
            b',' => {
                self.i += 1;
                self.ws();
                Some(true)
            }
            c if c == close => {
                self.i += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// An array: `element` reads each element.
    fn array(&mut self, mut element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        self.enter()?;
        self.ws();
        if self.eat(b']').is_none() {
            loop {
                element(self)?;
                if !self.more_before(b']')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        Some(())
    }

    /// The index of the first byte from `i` that ends a plain run of string content: a
    /// quote, a backslash or a control character (or the end). Eight bytes at a time: the
    /// lowest flagged byte of each test is exact (a false flag only ever sits above a true
    /// one).
    #[inline]
    fn plain_run(&self, mut i: usize) -> usize {
        while let Some(chunk) = self.b.get(i..i + 8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(chunk);
            let v = u64::from_le_bytes(w);
            let quote = v ^ (ONES * u64::from(b'"'));
            let slash = v ^ (ONES * u64::from(b'\\'));
            let hit = ((quote.wrapping_sub(ONES) & !quote)
                | (slash.wrapping_sub(ONES) & !slash)
                | (v.wrapping_sub(ONES * 0x20) & !v))
                & HIGH;
            if hit != 0 {
                return i + (hit.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
        while let Some(&c) = self.b.get(i) {
            if c == b'"' || c == b'\\' || c < 0x20 {
                break;
            }
            i += 1;
        }
        i
    }

    /// A string, borrowed when it has no escapes.
    #[inline]
    fn string(&mut self) -> Option<Cow<'a, str>> {
        self.eat(b'"')?;
        let start = self.i;
        let end = self.plain_run(start);
        if self.b.get(end) == Some(&b'"') {
            self.i = end + 1;
            // Both ends sit next to ASCII bytes, so they are character boundaries.
            return self.s.get(start..end).map(Cow::Borrowed);
        }
        self.string_with_escapes(start, end)
    }

    /// The rest of a string whose plain run from `start` stopped at `end` on something other
    /// than its closing quote.
    #[cold]
    #[inline(never)]
    fn string_with_escapes(&mut self, start: usize, end: usize) -> Option<Cow<'a, str>> {
        if self.b.get(end) != Some(&b'\\') {
            return None;
        }
        self.i = end;
        self.escaped(start).map(Cow::Owned)
    }

    /// One of the envelope's reserved keys, matched by its bytes (they hold no escapes, so
    /// bytes that match are that key), with the reader past it; `None` (the reader where it
    /// was) for any other key.
    #[inline]
    fn envelope_key(&mut self) -> Option<&'static str> {
        const NAMESPACE: &[u8] = b"\"io.modelcontextprotocol/";
        let rest = self.b.get(self.i..)?.strip_prefix(NAMESPACE)?;
        let key = match rest.first()? {
            b'p' => PROTOCOL_VERSION_KEY,
            b'c' if rest.get(6) == Some(&b'C') => CLIENT_CAPABILITIES_KEY,
            b'c' => CLIENT_INFO_KEY,
            b'l' => LOG_LEVEL_KEY,
            _ => return None,
        };
        let name = key.as_bytes().get(NAMESPACE.len() - 1..)?;
        if rest.strip_prefix(name)?.first() != Some(&b'"') {
            return None;
        }
        self.i += NAMESPACE.len() + name.len() + 1;
        Some(key)
    }

    /// The rest of a string with escapes, from `start` (its first content byte); the reader
    /// is on the first backslash.
    fn escaped(&mut self, start: usize) -> Option<String> {
        let mut out = String::with_capacity(self.i - start + 16);
        out.push_str(self.s.get(start..self.i)?);
        loop {
            match *self.b.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    return Some(out);
                }
                b'\\' => {
                    let c = *self.b.get(self.i + 1)?;
                    self.i += 2;
                    out.push(match c {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    });
                }
                c if c < 0x20 => return None,
                _ => {
                    let run = self.i;
                    let end = self.plain_run(run);
                    out.push_str(self.s.get(run..end)?);
                    self.i = end;
                }
            }
        }
    }

    /// The code point of a `\u` escape (the reader just past the `u`), a surrogate pair
    /// joined; a lone surrogate is left to serde_json.
    fn unicode_escape(&mut self) -> Option<char> {
        let hi = self.hex4()?;
        let code = match hi {
            0xD800..=0xDBFF => {
                if self.b.get(self.i..self.i + 2)? != b"\\u" {
                    return None;
                }
                self.i += 2;
                let lo = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&lo) {
                    return None;
                }
                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
            }
            0xDC00..=0xDFFF => return None,
            _ => hi,
        };
        char::from_u32(code)
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.b.get(self.i..self.i + 4)?;
        let mut n = 0u32;
        for &d in digits {
            n = n * 16 + char::from(d).to_digit(16)?;
        }
        self.i += 4;
        Some(n)
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if self.b.get(self.i..self.i + word.len())? == word {
            self.i += word.len();
            Some(())
        } else {
            None
        }
    }

    /// A number: integers as serde_json makes them (u64, or i64 when negative), others read
    /// by serde_json from their own text (so floats round as it rounds them).
    fn number(&mut self) -> Option<Value> {
        let start = self.i;
        let negative = self.eat(b'-').is_some();
        let mut n: u64 = 0;
        match self.peek()? {
            b'0' => self.i += 1,
            b'1'..=b'9' => {
                while let Some(d @ b'0'..=b'9') = self.peek() {
                    n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
                    self.i += 1;
                }
            }
            _ => return None,
        }
        if let Some(b'.' | b'e' | b'E') = self.peek() {
            if self.eat(b'.').is_some() {
                self.digits()?;
            }
            if let Some(b'e' | b'E') = self.peek() {
                self.i += 1;
                if let Some(b'+' | b'-') = self.peek() {
                    self.i += 1;
                }
                self.digits()?;
            }
            return serde_json::from_str::<Number>(self.s.get(start..self.i)?).ok().map(Value::Number);
        }
        if !negative {
            return Some(Value::from(n));
        }
        // serde_json reads `-0`, and a magnitude past i64, as a float: leave those to it.
        let v = (n as i64).wrapping_neg();
        (v < 0).then(|| Value::from(v))
    }

    fn digits(&mut self) -> Option<()> {
        let start = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        (self.i > start).then_some(())
    }

    /// Any value, built.
    fn value(&mut self) -> Option<Value> {
        Some(match self.peek()? {
            b'"' => Value::String(self.string()?.into_owned()),
            b'{' => {
                let mut m = Map::new();
                self.object(|r, key| {
                    let v = r.value()?;
                    m.insert(key.into_owned(), v);
                    Some(())
                })?;
                Value::Object(m)
            }
            b'[' => {
                let mut items = Vec::new();
                self.array(|r| {
                    items.push(r.value()?);
                    Some(())
                })?;
                Value::Array(items)
            }
            b't' => self.literal(b"true").map(|()| Value::Bool(true))?,
            b'f' => self.literal(b"false").map(|()| Value::Bool(false))?,
            b'n' => self.literal(b"null").map(|()| Value::Null)?,
            _ => self.number()?,
        })
    }

    /// Any value, checked and passed over (nothing is built but an escaped string).
    fn skip(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => self.object(|r, _| r.skip()),
            b'[' => self.array(Self::skip),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number().map(drop),
        }
    }

    /// `clientInfo`, checked and passed over: its usual shape, an object of plain strings, in
    /// one tight loop; any other through [`Reader::skip`].
    fn skip_client_info(&mut self) -> Option<()> {
        let start = self.i;
        if self.flat_plain_strings().is_none() {
            self.i = start;
            self.skip()?;
        }
        Some(())
    }

    /// An object whose keys and values are all strings without escapes.
    fn flat_plain_strings(&mut self) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            self.plain_string()?;
            self.ws();
            self.eat(b':')?;
            self.ws();
            self.plain_string()?;
            if !self.more_before(b'}')? {
                return Some(());
            }
        }
    }

    /// A string without escapes, passed over.
    #[inline]
    fn plain_string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        let end = self.plain_run(self.i);
        (self.b.get(end) == Some(&b'"')).then(|| self.i = end + 1)
    }

    /// The message's top-level object: the envelope's fields, a repeated one given up on,
    /// every other key checked and dropped.
    fn envelope(&mut self) -> Option<Envelope> {
        let mut env = Envelope::default();
        self.object(|r, key| {
            let slot = match key.as_ref() {
                "jsonrpc" => &mut env.jsonrpc,
                "id" => &mut env.id,
                "method" => &mut env.method,
                "result" => &mut env.result,
                "error" => &mut env.error,
                "params" => {
                    if env.params.is_some() {
                        return None;
                    }
                    env.params = Some(r.params()?);
                    return Some(());
                }
                _ => return r.skip(),
            };
            if slot.is_some() {
                return None;
            }
            *slot = Some(r.value()?);
            Some(())
        })?;
        Some(env)
    }

    /// `params`: an object's `_meta` read into [`RequestMeta`], every other member built.
    fn params(&mut self) -> Option<ParamsField> {
        if self.peek()? != b'{' {
            return self.value().map(ParamsField::Other);
        }
        let (mut rest, mut meta) = (Map::new(), None);
        self.object(|r, key| {
            if key == "_meta" {
                meta = Some(r.meta()?);
            } else {
                let v = r.value()?;
                rest.insert(key.into_owned(), v);
            }
            Some(())
        })?;
        Some(ParamsField::Object { rest, meta })
    }

    /// `params._meta`, when it is an object.
    fn meta(&mut self) -> Option<Box<RequestMeta>> {
        let mut m = Box::<RequestMeta>::default();
        let key = |r: &mut Self| match r.envelope_key() {
            Some(key) => Some(Cow::Borrowed(key)),
            None => r.string(),
        };
        self.object_keyed(key, |r, key| {
            match key.as_ref() {
                PROTOCOL_VERSION_KEY => m.protocol_version = Some(r.version()?),
                CLIENT_INFO_KEY => {
                    let start = r.i;
                    r.skip_client_info()?;
                    m.client_info = Some(CompactJson::trusted(r.s.get(start..r.i)?));
                }
                _ => {
                    let v = r.value()?;
                    m.put(key, v);
                }
            }
            Some(())
        })?;
        Some(m)
    }

    /// `io.modelcontextprotocol/protocolVersion`: a known revision read without allocating.
    fn version(&mut self) -> Option<VersionField> {
        if self.peek()? != b'"' {
            return self.value().map(VersionField::from_value);
        }
        let s = self.string()?;
        Some(match ProtocolVersion::known(&s) {
            Some(known) => VersionField::Known(known),
            None => VersionField::Other(Value::String(s.into_owned())),
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::protocol::jsonrpc::Parsed;

    /// What serde_json's path makes of `text`, when it reads it as an envelope at all.
    fn by_serde(text: &str) -> Option<Parsed> {
        serde_json::from_str::<Envelope>(text).ok().map(Envelope::classify)
    }

    fn by_reader(text: &str) -> Option<Parsed> {
        read_message(text).map(Envelope::classify)
    }

    /// The reader answers only where serde_json does, and with the same message.
    fn agrees(text: &str) {
        if let Some(mine) = by_reader(text) {
            assert_eq!(Some(mine), by_serde(text), "{text}");
        }
    }

    const MODERN: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"loadgen","version":"1.0"}}}}"#;

    #[test]
    fn reads_what_clients_send() {
        let lines = [
            MODERN,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":"a-1","result":{"content":[{"type":"text","text":"ok"}],"isError":false}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}"#,
            r#"{ "jsonrpc" : "2.0" , "id" : -3 , "method" : "x" , "params" : { "s" : "tab\there \"q\" \u00e9\ud83d\ude00 \/" , "f" : 1.5e3 } }"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"a\"b","version":"1","x":{"y":[1]}}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{ "name" : "c" ,"version":"1" } }}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/protocolVersio":1,"io.modelcontextprotocol/clientInfoo":{},"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/":2,"io.modelcontextprotocol/clientCapabilities":{"x":[]}}}}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"text\":\"caf\u{e9} \u{1f600}\",\"n\":null,\"t\":true,\"f\":false,\"e\":[]}}",
        ];
        for line in lines {
            assert!(read_message(line).is_some(), "{line}");
            agrees(line);
        }
        let Some(Ok(crate::protocol::Message::Request(r))) = by_reader(MODERN) else { panic!("not a request") };
        let meta = r.meta.expect("the envelope");
        assert_eq!(meta.protocol_version, Some(VersionField::Known(ProtocolVersion::V2026_07_28)));
        assert_eq!(meta.client_info.as_ref().map(CompactJson::get), Some(r#"{"name":"loadgen","version":"1.0"}"#));
        assert_eq!(meta.client_capabilities, Some(json!({})));
        assert_eq!(r.params, Some(json!({"name": "add", "arguments": {"a": 1, "b": 2}})));
    }

    #[test]
    fn gives_up_on_what_serde_must_judge() {
        for text in [
            "",
            "[]",
            "\"x\"",
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m"} x"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m",}"#,
            r#"{"jsonrpc":"2.0","id":01,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":-0,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"\ud800"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"\q"}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\u{1}b\"}",
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":"not an object"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":1.}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":1e999}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":tru}}"#,
        ] {
            assert!(read_message(text).is_none(), "{text}");
        }
        let deep = format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{{\"x\":{}1{}}}}}",
            "[".repeat(70),
            "]".repeat(70)
        );
        assert!(read_message(&deep).is_none());
        assert!(by_serde(&deep).is_some());
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            ".{0,12}".prop_map(Value::String),
            "[\\x00-\\x1f\"\\\\/a\u{e9}\u{1f600}]{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 24, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map("[a-z_/.]{0,6}|.{0,4}", inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn any_meta() -> impl Strategy<Value = Value> {
        let key = prop_oneof![
            Just(PROTOCOL_VERSION_KEY.to_owned()),
            Just(CLIENT_INFO_KEY.to_owned()),
            Just(CLIENT_CAPABILITIES_KEY.to_owned()),
            Just(LOG_LEVEL_KEY.to_owned()),
            Just("progressToken".to_owned()),
            "[a-z]{1,4}",
            "io\\.modelcontextprotocol/(protocolVersion|clientInfo|clientCapabilities|logLevel)?[a-zA-Z]{0,2}",
        ];
        let value = prop_oneof![Just(json!("2026-07-28")), Just(json!("2025-11-25")), any_value()];
        prop::collection::btree_map(key, value, 0..6).prop_map(|m| Value::Object(m.into_iter().collect()))
    }

    fn any_message() -> impl Strategy<Value = String> {
        let id = prop_oneof![Just(None), any_value().prop_map(Some)];
        let method = prop_oneof![Just(None), Just(Some(json!("tools/call"))), any_value().prop_map(Some)];
        let params = prop_oneof![
            Just(None),
            any_value().prop_map(Some),
            (prop::collection::btree_map("[a-z_]{1,6}", any_value(), 0..4), prop::option::of(any_meta())).prop_map(
                |(m, meta)| {
                    let mut m: Map<String, Value> = m.into_iter().collect();
                    if let Some(meta) = meta {
                        m.insert("_meta".to_owned(), meta);
                    }
                    Some(Value::Object(m))
                }
            ),
        ];
        let extra = prop::option::of(("[a-z]{1,8}", any_value()));
        (id, method, params, extra, any::<bool>(), any::<bool>()).prop_map(
            |(id, method, params, extra, pretty, escape)| {
                let mut m = Map::new();
                m.insert("jsonrpc".to_owned(), json!("2.0"));
                for (k, v) in [("id", id), ("method", method), ("params", params)] {
                    if let Some(v) = v {
                        m.insert(k.to_owned(), v);
                    }
                }
                if let Some((k, v)) = extra {
                    m.insert(k, v);
                }
                let v = Value::Object(m);
                let text = if pretty { serde_json::to_string_pretty(&v).unwrap_or_default() } else { v.to_string() };
                if escape {
                    // Outside strings JSON is ASCII: every other character can be a `\u` escape.
                    text.chars()
                        .map(|c| match c {
                            c if c.is_ascii() => c.to_string(),
                            c => c.encode_utf16(&mut [0; 2]).iter().map(|u| format!("\\u{u:04x}")).collect(),
                        })
                        .collect()
                } else {
                    text
                }
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, .. ProptestConfig::default() })]

        #[test]
        fn well_formed_messages_read_as_serde_reads_them(text in any_message()) {
            agrees(&text);
        }

        #[test]
        fn damaged_messages_read_as_serde_reads_them(
            text in any_message(),
            at in any::<prop::sample::Index>(),
            byte in prop::sample::select(b"{}[]\":,\\ -.0123456789eEtfnu".to_vec()),
            how in 0u8..3,
        ) {
            let mut b = text.into_bytes();
            let i = at.index(b.len() + 1);
            match how {
                0 => b.insert(i, byte),
                1 if i < b.len() => { b.remove(i); }
                _ => b.truncate(i),
            }
            if let Ok(t) = String::from_utf8(b) {
                agrees(&t);
            }
        }

        #[test]
        fn any_text_reads_as_serde_reads_it(text in "[ -~\\t\\n\u{e9}\u{1f600}]{0,80}") {
            agrees(&text);
        }
    }
}

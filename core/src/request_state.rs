//! Sealed `requestState` (2026-07-28 MRTR).
//!
//! A handler that answers "input required" may hand the client an opaque `requestState`,
//! which the client echoes on its retry. The client controls what comes back, so the spec
//! asks servers to protect it: Ferrite seals every outgoing state and opens every echoed
//! one, so handlers only ever see the text they wrote.
//!
//! Sealing is XChaCha20-Poly1305 (RustCrypto's `chacha20poly1305`): an AEAD, so the client
//! can neither read nor change the state, and the tag is checked in constant time. A sealed
//! state binds:
//! - an expiry (default 15 minutes),
//! - the caller's subject (a digest, compared in constant time; anonymous callers share the
//!   empty subject),
//! - the request it belongs to (method and tool/prompt name or resource URI, as associated
//!   data), so a state issued for one tool cannot be replayed on another.
//!
//! Keys: one current key seals; it and any number of previous keys open, so keys rotate
//! without breaking retries in flight. The application supplies the key (every instance of
//! a fleet must share it) or one is generated at start. Each key has an id (the first bytes
//! of its SHA-256), carried in the sealed text, so a retired key is told apart from
//! tampering.
//!
//! Wire form: `fr1.<key id, 16 hex>.<base64url(nonce ‖ ciphertext ‖ tag)>`.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

const PREFIX: &str = "fr1";
const NONCE_LEN: usize = 24;
const HEADER_LEN: usize = 8 + 32; // expiry (ms, big-endian) + subject digest
const AAD_DOMAIN: &[u8] = b"ferrite/requestState/v1\0";
/// The longest sealed state accepted back (bytes of text); larger is refused unread.
pub const MAX_SEALED_LEN: usize = 256 * 1024;

/// A 256-bit sealing key.
#[derive(Clone)]
pub struct SealingKey {
    key: [u8; 32],
    id: String,
}

impl fmt::Debug for SealingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print key material.
        f.debug_struct("SealingKey").field("id", &self.id).finish_non_exhaustive()
    }
}

/// Why a key could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The text is not 64 hex characters or base64 of 32 bytes.
    #[error("a requestState key is 32 bytes, written as 64 hex characters or base64 (standard or URL-safe)")]
    Format,
    /// The OS random source failed.
    #[error("no randomness for a requestState key: {0}")]
    Random(String),
}

impl SealingKey {
    /// A key from 32 bytes.
    pub fn from_bytes(key: [u8; 32]) -> Self {
        let digest = Sha256::digest(key);
        let id = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        SealingKey { key, id }
    }

    /// A key from text: 64 hex characters, or base64 (standard or URL-safe, padded or not)
    /// of 32 bytes. This is how every surface takes a key from configuration.
    pub fn parse(text: &str) -> Result<Self, KeyError> {
        let t = text.trim();
        let bytes: Vec<u8> = if t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()) {
            (0..32)
                .map(|i| u8::from_str_radix(&t[2 * i..2 * i + 2], 16))
                .collect::<Result<_, _>>()
                .map_err(|_| KeyError::Format)?
        } else {
            use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
            [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
                .iter()
                .find_map(|e| e.decode(t).ok())
                .ok_or(KeyError::Format)?
        };
        let key: [u8; 32] = bytes.try_into().map_err(|_| KeyError::Format)?;
        Ok(Self::from_bytes(key))
    }

    /// A fresh key from the OS CSPRNG.
    pub fn generate() -> Result<Self, KeyError> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| KeyError::Random(e.to_string()))?;
        Ok(Self::from_bytes(key))
    }

    /// The key id carried in sealed states (16 hex characters; not secret).
    pub fn id(&self) -> &str {
        &self.id
    }
}

/// Why an echoed `requestState` was refused. Each is answered `-32602`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// Not something this server sealed (wrong prefix, bad base64, too short or too long).
    #[error("requestState is malformed")]
    Malformed,
    /// Sealed with a key this server no longer accepts (retired, or another deployment).
    #[error("requestState was sealed with a key this server does not accept (retired or foreign)")]
    UnknownKey,
    /// The AEAD tag did not verify: changed in transit, or issued for another request.
    #[error("requestState failed verification: it was altered, or issued for another request")]
    Tampered,
    /// Past its expiry.
    #[error("requestState has expired; start the request again without it")]
    Expired,
    /// Sealed for another caller.
    #[error("requestState belongs to another caller")]
    ForeignSubject,
}

/// Seals and opens request states with a current key and any previous keys.
#[derive(Clone)]
pub struct RequestStateSealer {
    current: SealingKey,
    previous: Vec<SealingKey>,
    ttl: Duration,
}

impl fmt::Debug for RequestStateSealer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestStateSealer")
            .field("current", &self.current.id)
            .field("previous", &self.previous.iter().map(|k| k.id.as_str()).collect::<Vec<_>>())
            .field("ttl", &self.ttl)
            .finish()
    }
}

/// What a sealed state is bound to besides its expiry.
#[derive(Debug, Clone, Copy)]
pub struct Binding<'a> {
    /// The caller's subject (`""` when anonymous).
    pub subject: &'a str,
    /// The method (`tools/call`, `prompts/get`, `resources/read`).
    pub method: &'a str,
    /// The tool or prompt name, or the resource URI.
    pub target: &'a str,
}

impl Binding<'_> {
    fn aad(&self, key_id: &str) -> Vec<u8> {
        let mut a = Vec::with_capacity(AAD_DOMAIN.len() + key_id.len() + self.method.len() + self.target.len() + 2);
        a.extend_from_slice(AAD_DOMAIN);
        a.extend_from_slice(key_id.as_bytes());
        a.push(0);
        a.extend_from_slice(self.method.as_bytes());
        a.push(0);
        a.extend_from_slice(self.target.as_bytes());
        a
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// The default lifetime of a sealed state: long enough for a person to answer a form.
pub const DEFAULT_TTL: Duration = Duration::from_secs(15 * 60);

impl RequestStateSealer {
    /// A sealer with `current` and no previous keys.
    pub fn new(current: SealingKey) -> Self {
        RequestStateSealer { current, previous: Vec::new(), ttl: DEFAULT_TTL }
    }

    /// A sealer with a freshly generated key (fine for one process; a fleet must share a
    /// key, see [`RequestStateSealer::new`]).
    pub fn generated() -> Result<Self, KeyError> {
        Ok(Self::new(SealingKey::generate()?))
    }

    /// Also open states sealed with these keys (rotation).
    pub fn with_previous(mut self, previous: Vec<SealingKey>) -> Self {
        self.previous = previous;
        self
    }

    /// How long a sealed state stays valid.
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// How long a sealed state stays valid.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The id of the sealing key.
    pub fn current_key_id(&self) -> &str {
        self.current.id()
    }

    /// Seal `state` for `binding`.
    pub fn seal(&self, state: &str, binding: Binding<'_>) -> String {
        self.seal_at(state, binding, now_ms())
    }

    fn seal_at(&self, state: &str, binding: Binding<'_>, now: u64) -> String {
        let expires = now.saturating_add(self.ttl.as_millis() as u64);
        let mut plain = Vec::with_capacity(HEADER_LEN + state.len());
        plain.extend_from_slice(&expires.to_be_bytes());
        plain.extend_from_slice(&Sha256::digest(binding.subject.as_bytes()));
        plain.extend_from_slice(state.as_bytes());
        let mut nonce = [0u8; NONCE_LEN];
        if getrandom::fill(&mut nonce).is_err() {
            // No OS randomness: derive a unique nonce from the clock and content instead of
            // failing the request (XChaCha's 192-bit nonce leaves ample margin).
            let d = Sha256::digest([&now.to_be_bytes()[..], state.as_bytes(), &expires.to_be_bytes()].concat());
            nonce.copy_from_slice(&d[..NONCE_LEN]);
        }
        let cipher = XChaCha20Poly1305::new((&self.current.key).into());
        let aad = binding.aad(&self.current.id);
        // Encryption with a valid key and nonce cannot fail.
        let sealed = cipher.encrypt(XNonce::from_slice(&nonce), Payload { msg: &plain, aad: &aad }).unwrap_or_default();
        let mut body = Vec::with_capacity(NONCE_LEN + sealed.len());
        body.extend_from_slice(&nonce);
        body.extend_from_slice(&sealed);
        format!("{PREFIX}.{}.{}", self.current.id, base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(body))
    }

    /// Open a state the client echoed, checking key, integrity, binding, expiry and subject.
    pub fn open(&self, sealed: &str, binding: Binding<'_>) -> Result<String, OpenError> {
        self.open_at(sealed, binding, now_ms())
    }

    fn open_at(&self, sealed: &str, binding: Binding<'_>, now: u64) -> Result<String, OpenError> {
        if sealed.len() > MAX_SEALED_LEN {
            return Err(OpenError::Malformed);
        }
        let mut parts = sealed.splitn(3, '.');
        let (Some(PREFIX), Some(kid), Some(body)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(OpenError::Malformed);
        };
        if kid.len() != 16 || !kid.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(OpenError::Malformed);
        }
        let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(body).map_err(|_| OpenError::Malformed)?;
        if raw.len() < NONCE_LEN + HEADER_LEN + 16 {
            return Err(OpenError::Malformed);
        }
        let key = std::iter::once(&self.current)
            .chain(self.previous.iter())
            .find(|k| k.id == kid)
            .ok_or(OpenError::UnknownKey)?;
        let (nonce, ciphertext) = raw.split_at(NONCE_LEN);
        let cipher = XChaCha20Poly1305::new((&key.key).into());
        let aad = binding.aad(&key.id);
        let plain = cipher
            .decrypt(XNonce::from_slice(nonce), Payload { msg: ciphertext, aad: &aad })
            .map_err(|_| OpenError::Tampered)?;
        let mut expires = [0u8; 8];
        expires.copy_from_slice(&plain[..8]);
        let subject_ok: bool = plain[8..HEADER_LEN].ct_eq(&Sha256::digest(binding.subject.as_bytes())).into();
        if !subject_ok {
            return Err(OpenError::ForeignSubject);
        }
        if u64::from_be_bytes(expires) <= now {
            return Err(OpenError::Expired);
        }
        String::from_utf8(plain[HEADER_LEN..].to_vec()).map_err(|_| OpenError::Malformed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: Binding<'static> = Binding { subject: "alice", method: "tools/call", target: "book" };

    fn sealer() -> RequestStateSealer {
        RequestStateSealer::new(SealingKey::from_bytes([7; 32]))
    }

    #[test]
    fn a_round_trip_gives_the_plaintext_back() {
        let s = sealer();
        let sealed = s.seal(r#"{"step":2}"#, B);
        assert!(sealed.starts_with("fr1."), "{sealed}");
        assert!(!sealed.contains("step"), "the state is encrypted: {sealed}");
        assert_eq!(s.open(&sealed, B).unwrap(), r#"{"step":2}"#);
        assert_eq!(s.open(&s.seal("", B), B).unwrap(), "");
    }

    #[test]
    fn a_flipped_byte_is_tampering() {
        let s = sealer();
        let sealed = s.seal("state", B);
        let (head, body) = sealed.rsplit_once('.').unwrap();
        let mut raw = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(body).unwrap();
        for i in [0, NONCE_LEN, raw.len() - 1] {
            raw[i] ^= 0x01;
            let t = format!("{head}.{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&raw));
            assert_eq!(s.open(&t, B), Err(OpenError::Tampered), "byte {i}");
            raw[i] ^= 0x01;
        }
    }

    #[test]
    fn another_request_or_subject_is_refused() {
        let s = sealer();
        let sealed = s.seal("state", B);
        assert_eq!(s.open(&sealed, Binding { target: "other", ..B }), Err(OpenError::Tampered));
        assert_eq!(s.open(&sealed, Binding { method: "prompts/get", ..B }), Err(OpenError::Tampered));
        assert_eq!(s.open(&sealed, Binding { subject: "mallory", ..B }), Err(OpenError::ForeignSubject));
        assert_eq!(s.open(&sealed, Binding { subject: "", ..B }), Err(OpenError::ForeignSubject));
    }

    #[test]
    fn an_expired_state_is_refused() {
        let s = sealer().with_ttl(Duration::from_secs(60));
        let sealed = s.seal_at("state", B, 1_000_000);
        assert_eq!(s.open_at(&sealed, B, 1_000_000 + 59_999).unwrap(), "state");
        assert_eq!(s.open_at(&sealed, B, 1_000_000 + 60_000), Err(OpenError::Expired));
    }

    #[test]
    fn keys_rotate_and_retire() {
        let old = SealingKey::from_bytes([1; 32]);
        let new = SealingKey::from_bytes([2; 32]);
        let before = RequestStateSealer::new(old.clone());
        let sealed_with_old = before.seal("s", B);
        // Rotated: the new key seals, the old one still opens.
        let rotated = RequestStateSealer::new(new.clone()).with_previous(vec![old.clone()]);
        assert_eq!(rotated.open(&sealed_with_old, B).unwrap(), "s");
        assert!(rotated.seal("s", B).contains(new.id()));
        // Retired: the old key is gone.
        let retired = RequestStateSealer::new(new);
        assert_eq!(retired.open(&sealed_with_old, B), Err(OpenError::UnknownKey));
    }

    #[test]
    fn malformed_encodings_are_refused() {
        let s = sealer();
        let good = s.seal("s", B);
        let kid = s.current_key_id().to_owned();
        for bad in [
            String::new(),
            "plain".into(),
            "fr1".into(),
            format!("fr1.{kid}"),
            format!("fr2.{kid}.AAAA"),
            format!("fr1.{kid}.!!!!"),
            format!("fr1.{kid}.AAAA"),
            format!("fr1.zz.{}", good.rsplit_once('.').unwrap().1),
            "x".repeat(MAX_SEALED_LEN + 1),
        ] {
            assert_eq!(s.open(&bad, B), Err(OpenError::Malformed), "{bad:.40}");
        }
    }

    #[test]
    fn keys_parse_from_hex_and_base64_and_never_print() {
        let hex = "07".repeat(32);
        let a = SealingKey::parse(&hex).unwrap();
        let b64 = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
        let b = SealingKey::parse(&b64).unwrap();
        assert_eq!(a.id(), b.id());
        assert_eq!(a.id(), SealingKey::from_bytes([7; 32]).id());
        assert_eq!(SealingKey::parse("short").unwrap_err(), KeyError::Format);
        assert_eq!(SealingKey::parse(&"0".repeat(63)).unwrap_err(), KeyError::Format);
        assert!(!format!("{a:?}").contains("07, 07"));
        assert_ne!(SealingKey::generate().unwrap().id(), SealingKey::generate().unwrap().id());
    }
}

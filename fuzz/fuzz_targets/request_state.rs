//! The sealed 2026-07-28 `requestState` codec (`request_state::RequestStateSealer`), with a
//! fixed key.
//!
//! Input: the first byte picks the mode. Mode 0: the rest is an echoed token, opened (and its
//! text parsed as a key): it must be refused, never accepted or a panic. Otherwise: the
//! rest is `subject \0 target \0 state`; the state is sealed and opened back equal; opened
//! for another target or subject, or with one character of the token changed, it is
//! refused.
#![no_main]

use std::sync::OnceLock;

use ferrite_core::request_state::{Binding, RequestStateSealer, SealingKey};
use libfuzzer_sys::fuzz_target;

fn sealer() -> &'static RequestStateSealer {
    static S: OnceLock<RequestStateSealer> = OnceLock::new();
    S.get_or_init(|| {
        RequestStateSealer::new(SealingKey::from_bytes([0x42; 32])).with_previous(vec![SealingKey::from_bytes([7; 32])])
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((mode, rest)) = data.split_first() else { return };
    let s = sealer();
    if *mode == 0 {
        let token = String::from_utf8_lossy(rest);
        let b = Binding { subject: "", method: "tools/call", target: "t" };
        assert!(s.open(&token, b).is_err(), "a forged token opened: {token:?}");
        let _ = SealingKey::parse(&token);
        return;
    }
    let text = String::from_utf8_lossy(rest);
    let mut parts = text.splitn(3, '\0');
    let (subject, target, state) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let b = Binding { subject, method: "tools/call", target };
    let sealed = s.seal(state, b);
    assert_eq!(s.open(&sealed, b).as_deref(), Ok(state), "round trip of {state:?}");

    let other_target = format!("{target}x");
    assert!(s.open(&sealed, Binding { target: &other_target, ..b }).is_err());
    let other_subject = format!("{subject}x");
    assert!(s.open(&sealed, Binding { subject: &other_subject, ..b }).is_err());
    assert!(s.open(&sealed, Binding { method: "prompts/get", ..b }).is_err());

    // One character changed anywhere is refused.
    let at = usize::from(*mode) * 7 % sealed.len();
    let mut bytes = sealed.into_bytes();
    bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(bytes).expect("a sealed token is ASCII");
    assert!(s.open(&tampered, b).is_err(), "a tampered token opened: {tampered:?}");
});

//! The SSE `Last-Event-ID` parser the GET handler runs on a reconnecting client's header
//! (`transport::http::sse::parse_event_id`, reached through `ferrite_core::fuzzing`).
//!
//! Input: the header value. Invariants: whatever parses writes back (`event_id`) to an id
//! that parses to the same stream and number; any stream name and number written by the
//! server parse back exactly.
#![no_main]

use ferrite_core::fuzzing::{event_id, parse_event_id};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The GET handler reads the header only when it is text.
    let text = String::from_utf8_lossy(data);
    if let Some((stream, seq)) = parse_event_id(&text) {
        let again = event_id(stream, seq);
        assert_eq!(parse_event_id(&again), Some((stream, seq)), "{text:?} -> {again:?}");
    }
    // The input as a stream name, numbered by its length.
    let seq = data.len() as u64 * 0x9e37_79b9;
    let written = event_id(&text, seq);
    assert_eq!(parse_event_id(&written), Some((&*text, seq)), "{written:?}");
});

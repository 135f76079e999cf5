//! Doors for the fuzz targets (`fuzz/`) into crate-private parsers a peer reaches, compiled
//! only with the `fuzzing` feature. Thin wrappers, no logic: the targets must exercise the
//! very code the transports run.

/// The SSE `Last-Event-ID` parser the GET handler runs on the header
/// (`transport::http::sse::parse_event_id`).
pub fn parse_event_id(id: &str) -> Option<(&str, u64)> {
    crate::transport::http::sse::parse_event_id(id)
}

/// The event id the SSE writer emits for event `seq` of `stream`
/// (`transport::http::sse::event_id`), so a target can check the parser reads it back.
pub fn event_id(stream: &str, seq: u64) -> String {
    crate::transport::http::sse::event_id(stream, seq)
}

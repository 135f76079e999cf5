//! Server-sent events: wire encoding, the resumability store, and the per-stream hub that
//! decides where each event goes.
//!
//! Every SSE stream (a POST's response stream or a session's GET stream) has a [`StreamHub`].
//! Events get ids `<stream>:<seq>` from the [`EventStore`] so a client that lost the stream
//! can reconnect with `Last-Event-ID` and receive what it missed. The hub's sink is a bounded
//! channel: a reader too slow to keep up is cut off (its events stay in the store) rather
//! than letting memory grow.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::sync::lock;

/// Encode one SSE event. `data` is a compact JSON text (no newlines), or empty.
pub fn encode_event(id: Option<&str>, data: &str, retry: Option<Duration>) -> Bytes {
    let mut s = String::with_capacity(data.len() + 48);
    if let Some(id) = id {
        s.push_str("id: ");
        s.push_str(id);
        s.push('\n');
    }
    if let Some(r) = retry {
        s.push_str("retry: ");
        s.push_str(&r.as_millis().to_string());
        s.push('\n');
    }
    if data.is_empty() {
        s.push_str("data: \n");
    } else {
        for line in data.split('\n') {
            s.push_str("data: ");
            s.push_str(line);
            s.push('\n');
        }
    }
    s.push('\n');
    Bytes::from(s)
}

/// Where SSE events are kept so that a client can resume a stream with `Last-Event-ID`.
pub trait EventStore: Send + Sync + 'static {
    /// Store `data` as the next event of `stream`; returns its event id.
    fn append(&self, stream: &str, data: &str) -> String;
    /// The stream that `last_event_id` belongs to and the events stored after it, or `None`
    /// when the id is unknown (never issued, or already evicted).
    fn replay_after(&self, last_event_id: &str) -> Option<(String, Vec<(String, String)>)>;
}

/// The default [`EventStore`]: in memory, bounded per stream and in number of streams
/// (oldest streams are evicted first).
pub struct InMemoryEventStore {
    max_events_per_stream: usize,
    max_streams: usize,
    state: Mutex<StoreState>,
}

#[derive(Default)]
struct StoreState {
    streams: HashMap<String, StoredStream>,
    order: VecDeque<String>,
}

#[derive(Default)]
struct StoredStream {
    next_seq: u64,
    events: VecDeque<(u64, String)>,
}

impl InMemoryEventStore {
    /// A store keeping at most `max_events_per_stream` events of each of the
    /// `max_streams` most recent streams.
    pub fn new(max_events_per_stream: usize, max_streams: usize) -> Self {
        InMemoryEventStore {
            max_events_per_stream: max_events_per_stream.max(1),
            max_streams: max_streams.max(1),
            state: Mutex::new(StoreState::default()),
        }
    }
}

impl Default for InMemoryEventStore {
    fn default() -> Self {
        Self::new(1024, 4096)
    }
}

impl EventStore for InMemoryEventStore {
    fn append(&self, stream: &str, data: &str) -> String {
        let mut st = lock(&self.state);
        if !st.streams.contains_key(stream) {
            while st.order.len() >= self.max_streams {
                if let Some(old) = st.order.pop_front() {
                    st.streams.remove(&old);
                }
            }
            st.order.push_back(stream.to_owned());
            st.streams.insert(stream.to_owned(), StoredStream::default());
        }
        let max = self.max_events_per_stream;
        let entry = st.streams.entry(stream.to_owned()).or_default();
        let seq = entry.next_seq;
        entry.next_seq += 1;
        entry.events.push_back((seq, data.to_owned()));
        while entry.events.len() > max {
            entry.events.pop_front();
        }
        format!("{stream}:{seq}")
    }

    fn replay_after(&self, last_event_id: &str) -> Option<(String, Vec<(String, String)>)> {
        let (stream, seq) = last_event_id.rsplit_once(':')?;
        let seq: u64 = seq.parse().ok()?;
        let st = lock(&self.state);
        let s = st.streams.get(stream)?;
        if seq >= s.next_seq {
            return None;
        }
        let events =
            s.events.iter().filter(|(n, _)| *n > seq).map(|(n, d)| (format!("{stream}:{n}"), d.clone())).collect();
        Some((stream.to_owned(), events))
    }
}

/// Where one stream's events go: buffered until the response starts, then to the live sink
/// (if a client is connected) and to the event store (if resumable).
pub(crate) struct StreamHub {
    id: String,
    store: Option<Arc<dyn EventStore>>,
    state: Mutex<HubState>,
}

struct HubState {
    started: bool,
    buffered: Vec<String>,
    sink: Option<mpsc::Sender<Bytes>>,
    finished: bool,
    events: u64,
    /// The server asked to drop the client's connection before the stream started.
    disconnect_pending: Option<Option<Duration>>,
}

impl StreamHub {
    pub(crate) fn new(id: String, store: Option<Arc<dyn EventStore>>) -> Self {
        StreamHub {
            id,
            store,
            state: Mutex::new(HubState {
                started: false,
                buffered: Vec::new(),
                sink: None,
                finished: false,
                events: 0,
                disconnect_pending: None,
            }),
        }
    }

    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Whether a client can resume this stream after losing it.
    pub(crate) fn resumable(&self) -> bool {
        self.store.is_some()
    }

    pub(crate) fn is_finished(&self) -> bool {
        lock(&self.state).finished
    }

    /// How many messages were pushed (before or after the start).
    pub(crate) fn message_count(&self) -> u64 {
        lock(&self.state).events
    }

    fn emit(&self, st: &mut HubState, data: &str) {
        let id = self.store.as_ref().map(|s| s.append(&self.id, data));
        if let Some(sink) = &st.sink {
            if sink.try_send(encode_event(id.as_deref(), data, None)).is_err() {
                // Closed (client gone) or full (client too slow): cut the client off. With a
                // store, the event is kept for a resume.
                st.sink = None;
            }
        }
    }

    /// Start streaming to `sink`: an optional priming event (an id and empty data, so the
    /// client can resume even before the first message), then what was buffered.
    pub(crate) fn start(&self, sink: mpsc::Sender<Bytes>, priming: bool, retry: Option<Duration>) {
        let mut st = lock(&self.state);
        st.started = true;
        if priming {
            if let Some(store) = &self.store {
                let id = store.append(&self.id, "");
                let _ = sink.try_send(encode_event(Some(&id), "", retry));
            }
        }
        st.sink = Some(sink);
        for data in std::mem::take(&mut st.buffered) {
            self.emit(&mut st, &data);
        }
        if st.finished {
            st.sink = None;
        } else if let Some(retry) = st.disconnect_pending.take() {
            Self::drop_sink(&mut st, retry);
        }
    }

    fn drop_sink(st: &mut HubState, retry: Option<Duration>) {
        if let (Some(sink), Some(r)) = (&st.sink, retry) {
            let _ = sink.try_send(Bytes::from(format!("retry: {}\n\n", r.as_millis())));
        }
        st.sink = None;
    }

    /// Push one message (a JSON-RPC notification or request).
    pub(crate) fn push(&self, data: String) {
        let mut st = lock(&self.state);
        if st.finished {
            return;
        }
        st.events += 1;
        if st.started {
            self.emit(&mut st, &data);
        } else {
            st.buffered.push(data);
        }
    }

    /// Push the last message (the response) and end the stream.
    pub(crate) fn finish(&self, data: Option<String>) {
        let mut st = lock(&self.state);
        if st.finished {
            return;
        }
        if let Some(d) = data {
            st.events += 1;
            if st.started {
                self.emit(&mut st, &d);
            } else {
                st.buffered.push(d);
            }
        }
        st.finished = true;
        if st.started {
            st.sink = None;
        }
    }

    /// The server closes the client's connection without ending the stream: a `retry` hint,
    /// then the sink is dropped. Only meaningful when resumable.
    pub(crate) fn disconnect(&self, retry: Option<Duration>) -> bool {
        let mut st = lock(&self.state);
        if st.finished || self.store.is_none() {
            return false;
        }
        if st.started {
            Self::drop_sink(&mut st, retry);
        } else {
            st.disconnect_pending = Some(retry);
        }
        true
    }

    /// A client reconnected with `Last-Event-ID`: replay what it missed, then keep it
    /// attached if the stream is still running.
    pub(crate) fn reattach(&self, sink: mpsc::Sender<Bytes>, missed: Vec<(String, String)>) {
        let mut st = lock(&self.state);
        for (id, data) in missed {
            let _ = sink.try_send(encode_event(Some(&id), &data, None));
        }
        if !st.finished {
            st.started = true;
            st.sink = Some(sink);
        }
    }

    /// Drop the live sink (the session ended or the server shuts down).
    pub(crate) fn close(&self) {
        let mut st = lock(&self.state);
        st.sink = None;
        st.finished = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_encode_with_id_retry_and_data() {
        assert_eq!(&encode_event(Some("s:1"), r#"{"a":1}"#, None)[..], b"id: s:1\ndata: {\"a\":1}\n\n");
        assert_eq!(
            &encode_event(Some("s:0"), "", Some(Duration::from_millis(500)))[..],
            b"id: s:0\nretry: 500\ndata: \n\n"
        );
    }

    #[test]
    fn store_replays_after_an_id_and_evicts_old_streams() {
        let s = InMemoryEventStore::new(2, 2);
        let a0 = s.append("a", "x");
        s.append("a", "y");
        s.append("a", "z");
        let (stream, events) = s.replay_after(&a0).unwrap();
        assert_eq!(stream, "a");
        assert_eq!(events, vec![("a:1".to_owned(), "y".to_owned()), ("a:2".to_owned(), "z".to_owned())]);
        s.append("b", "1");
        s.append("c", "1");
        assert!(s.replay_after("a:1").is_none(), "a was evicted");
        assert!(s.replay_after("nonsense").is_none());
        assert!(s.replay_after("c:5").is_none());
    }
}

//! Server-sent events: wire encoding, the resumability store, and the per-stream hub that
//! decides where each event goes.
//!
//! Every SSE stream (a POST's response stream or a session's GET stream) has a [`StreamHub`].
//! Events get ids `<stream>:<seq>` from the [`EventStore`] so a client that lost the stream
//! can reconnect with `Last-Event-ID` and receive what it missed. The hub's sink is a bounded
//! channel: a reader too slow to keep up is cut off (its events stay in the store) rather
//! than letting memory grow.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::stores::EventLog;
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
    /// The events of `stream` stored after event `seq`, or `None` when the stream is unknown
    /// (never written, or already evicted) or `seq` was never issued.
    fn replay_after(&self, stream: &str, seq: u64) -> Option<Vec<(u64, String)>>;
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
    /// Events kept per stream by default.
    pub const DEFAULT_EVENTS_PER_STREAM: usize = 1024;
    /// Streams kept by default.
    pub const DEFAULT_STREAMS: usize = 4096;

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
        Self::new(Self::DEFAULT_EVENTS_PER_STREAM, Self::DEFAULT_STREAMS)
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

    fn replay_after(&self, stream: &str, seq: u64) -> Option<Vec<(u64, String)>> {
        let st = lock(&self.state);
        let s = st.streams.get(stream)?;
        if seq >= s.next_seq {
            return None;
        }
        Some(s.events.iter().filter(|(n, _)| *n > seq).cloned().collect())
    }
}

/// Where a stream's events are kept for resumption.
#[derive(Clone)]
pub(crate) enum Resume {
    /// Not resumable (stateless, JSON-only, or resumability off).
    Off,
    /// This process's [`EventStore`]; it numbers the events.
    Local(Arc<dyn EventStore>),
    /// The fleet's [`EventLog`]; the hub numbers the events, from `next`.
    Shared {
        /// The log.
        log: Arc<dyn EventLog>,
        /// The number of the stream's next event (after those already logged).
        next: u64,
    },
}

/// What the writer of a shared stream does, in order.
enum Write {
    /// Log event `seq`, then send it to the client (with a `retry` hint for a priming event).
    Event { seq: u64, data: String, retry: Option<Duration> },
    /// Drop the client's connection (after a `retry` hint, when given).
    DropSink(Option<Duration>),
}

/// Where one stream's events go: buffered until the response starts, then to the live sink
/// (if a client is connected) and to the event store (if resumable). With a shared
/// [`EventLog`], a writer task logs each event before the client sees it, in order, so
/// whatever a client saw can be resumed on another instance.
pub(crate) struct StreamHub {
    id: String,
    resume: Resume,
    /// The writer of a shared stream, started by its first event (most POSTs answer as JSON
    /// and never need one).
    writer: OnceLock<mpsc::UnboundedSender<Write>>,
    me: Weak<StreamHub>,
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
    /// Shared log: the number of the next event, and of the last one sent to a client.
    next_seq: u64,
    sent_seq: Option<u64>,
}

impl StreamHub {
    pub(crate) fn new(id: String, resume: Resume) -> Arc<Self> {
        let next_seq = match &resume {
            Resume::Shared { next, .. } => *next,
            _ => 0,
        };
        Arc::new_cyclic(|me| StreamHub {
            id,
            resume,
            writer: OnceLock::new(),
            me: me.clone(),
            state: Mutex::new(HubState {
                started: false,
                buffered: Vec::new(),
                sink: None,
                finished: false,
                events: 0,
                disconnect_pending: None,
                next_seq,
                sent_seq: next_seq.checked_sub(1),
            }),
        })
    }

    fn is_shared(&self) -> bool {
        matches!(self.resume, Resume::Shared { .. })
    }

    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Whether a client can resume this stream after losing it.
    pub(crate) fn resumable(&self) -> bool {
        !matches!(self.resume, Resume::Off)
    }

    pub(crate) fn is_finished(&self) -> bool {
        lock(&self.state).finished
    }

    /// How many messages were pushed (before or after the start).
    pub(crate) fn message_count(&self) -> u64 {
        lock(&self.state).events
    }

    fn emit(&self, st: &mut HubState, data: &str, retry: Option<Duration>) {
        match &self.resume {
            Resume::Shared { .. } => {
                let seq = st.next_seq;
                st.next_seq += 1;
                self.queue(Write::Event { seq, data: data.to_owned(), retry });
            }
            Resume::Local(store) => {
                let id = store.append(&self.id, data);
                Self::send(st, encode_event(Some(&id), data, retry));
            }
            Resume::Off => Self::send(st, encode_event(None, data, retry)),
        }
    }

    fn queue(&self, w: Write) {
        let Resume::Shared { log, .. } = &self.resume else { return };
        let q = self.writer.get_or_init(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            tokio::spawn(write_shared(self.me.clone(), log.clone(), self.id.clone(), rx));
            tx
        });
        // The writer lives as long as the hub: a send cannot fail.
        let _ = q.send(w);
    }

    fn send(st: &mut HubState, frame: Bytes) {
        if let Some(sink) = &st.sink {
            if sink.try_send(frame).is_err() {
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
        st.sink = Some(sink);
        if priming && self.resumable() {
            self.emit(&mut st, "", retry);
        }
        for data in std::mem::take(&mut st.buffered) {
            self.emit(&mut st, &data, None);
        }
        if st.finished {
            self.end_sink(&mut st, None);
        } else if let Some(retry) = st.disconnect_pending.take() {
            self.end_sink(&mut st, retry);
        }
    }

    /// Drop the client's connection once what was emitted before reached it.
    fn end_sink(&self, st: &mut HubState, retry: Option<Duration>) {
        if self.is_shared() {
            self.queue(Write::DropSink(retry));
        } else {
            Self::drop_sink(st, retry);
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
            self.emit(&mut st, &data, None);
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
                self.emit(&mut st, &d, None);
            } else {
                st.buffered.push(d);
            }
        }
        st.finished = true;
        if st.started {
            self.end_sink(&mut st, None);
        }
    }

    /// The server closes the client's connection without ending the stream: a `retry` hint,
    /// then the sink is dropped. Only meaningful when resumable.
    pub(crate) fn disconnect(&self, retry: Option<Duration>) -> bool {
        let mut st = lock(&self.state);
        if st.finished || !self.resumable() {
            return false;
        }
        if st.started {
            self.end_sink(&mut st, retry);
        } else {
            st.disconnect_pending = Some(retry);
        }
        true
    }

    /// A client reconnected with `Last-Event-ID`: replay what it missed (numbered events of
    /// this stream), then keep it attached if the stream is still running.
    pub(crate) fn reattach(&self, sink: mpsc::Sender<Bytes>, missed: Vec<(u64, String)>) {
        let mut st = lock(&self.state);
        for (seq, data) in missed {
            let _ = sink.try_send(encode_event(Some(&event_id(&self.id, seq)), &data, None));
            st.sent_seq = Some(st.sent_seq.map_or(seq, |s| s.max(seq)));
        }
        let drained = st.sent_seq.map_or(0, |s| s + 1) >= st.next_seq;
        if !st.finished || (self.is_shared() && !drained) {
            st.started = true;
            st.sink = Some(sink);
            if st.finished {
                self.queue(Write::DropSink(None));
            }
        }
    }

    /// Drop the live sink (the session ended or the server shuts down).
    pub(crate) fn close(&self) {
        let mut st = lock(&self.state);
        st.sink = None;
        st.finished = true;
    }
}

/// The id of event `seq` of `stream`.
pub(crate) fn event_id(stream: &str, seq: u64) -> String {
    format!("{stream}:{seq}")
}

/// A `Last-Event-ID`: the stream and the event number.
pub(crate) fn parse_event_id(id: &str) -> Option<(&str, u64)> {
    let (stream, seq) = id.rsplit_once(':')?;
    Some((stream, seq.parse().ok()?))
}

/// The writer of a stream kept in a shared log: each event is logged, then sent to whichever
/// client is attached then (unless a replay already sent it). A log that fails does not stop
/// the live stream; the event just cannot be resumed.
async fn write_shared(
    hub: Weak<StreamHub>,
    log: Arc<dyn EventLog>,
    stream: String,
    mut rx: mpsc::UnboundedReceiver<Write>,
) {
    while let Some(w) = rx.recv().await {
        match w {
            Write::Event { seq, data, retry } => {
                let _ = log.append(&stream, seq, &data).await;
                let Some(hub) = hub.upgrade() else { continue };
                let mut st = lock(&hub.state);
                if st.sent_seq.is_some_and(|s| s >= seq) {
                    continue;
                }
                StreamHub::send(&mut st, encode_event(Some(&event_id(&stream, seq)), &data, retry));
                st.sent_seq = Some(seq);
            }
            Write::DropSink(retry) => {
                if let Some(hub) = hub.upgrade() {
                    StreamHub::drop_sink(&mut lock(&hub.state), retry);
                }
            }
        }
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
        assert_eq!(a0, "a:0");
        let events = s.replay_after("a", 0).unwrap();
        assert_eq!(events, vec![(1, "y".to_owned()), (2, "z".to_owned())]);
        s.append("b", "1");
        s.append("c", "1");
        assert!(s.replay_after("a", 1).is_none(), "a was evicted");
        assert!(parse_event_id("nonsense").is_none());
        assert!(s.replay_after("c", 5).is_none());
    }
}

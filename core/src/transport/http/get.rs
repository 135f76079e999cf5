//! GET: the session's standalone SSE stream (unsolicited messages: list changes, resource
//! updates, server-to-client requests outside any request), and the resumption of any of the
//! session's streams with `Last-Event-ID`, on this instance or, with a shared event log, on any
//! instance of a fleet (a resumed GET stream goes on where it is resumed).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{Request, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use tokio::sync::mpsc;

use super::peer::StreamPeer;
use super::session::Session;
use super::sse::{encode_event, event_id, parse_event_id, StreamHub};
use super::{
    accepts, check_host, find_session, header_str, header_version, method_not_allowed, names_modern_revision, reject,
    sse_response, store_unavailable, HttpState, StreamKind,
};
use crate::protocol::ProtocolVersion;
use crate::server::Peer;

pub(super) async fn handle_get(State(st): State<Arc<HttpState>>, req: Request<Body>) -> Response {
    let (mut parts, _) = req.into_parts();
    if let Err(r) = check_host(&st, &parts) {
        return r;
    }
    if let Err(r) = super::auth::authenticate(&st, &mut parts).await {
        return r;
    }
    let h = &parts.headers;
    if st.server.is_stateless() {
        return method_not_allowed("this server is stateless");
    }
    if names_modern_revision(h) {
        return method_not_allowed("2026-07-28 has no GET stream (subscriptions/listen replaces it)");
    }
    let (_, sse_ok) = accepts(h);
    if !sse_ok {
        return reject(StatusCode::NOT_ACCEPTABLE, "Not Acceptable: Accept must include text/event-stream");
    }
    if let Err(r) = header_version(h) {
        return r;
    }
    let session = match find_session(&st, &parts).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let (tx, rx) = mpsc::channel(st.opts.stream_buffer.max(1));

    // Resumption of a stream the client lost (one of this session's: another session's ids
    // are ignored).
    let resumed = header_str(h, "last-event-id")
        .and_then(parse_event_id)
        .filter(|(stream, _)| StreamKind::of(stream).is_some_and(|(s, _)| s == session.id()));
    if let Some((stream, seq)) = resumed {
        let missed = match (&st.shared_events, &st.opts.event_store) {
            (Some(log), _) => match log.replay_after(stream, seq).await {
                Ok(m) => m,
                Err(e) => return store_unavailable(&e.to_string()),
            },
            (None, Some(store)) => store.replay_after(stream, seq),
            (None, None) => None,
        };
        if let Some(missed) = missed {
            let live = session.find_stream(stream).filter(|h| !h.is_finished());
            if let Some(hub) = live {
                hub.reattach(tx, missed);
                return sse_response(st.sse_body(rx), None);
            }
            if StreamKind::of(stream).is_some_and(|(_, k)| k == StreamKind::Get) {
                // The GET stream goes on here (its instance may be gone): same stream, the
                // next events numbered after the last one kept.
                let next = missed.last().map_or(seq, |(n, _)| *n) + 1;
                let hub = StreamHub::new(stream.to_owned(), st.resume_for(next));
                return open_get_stream(&st, &session, hub, tx, rx, missed);
            }
            for (n, data) in missed {
                let _ = tx.try_send(encode_event(Some(&event_id(stream, n)), &data, None));
            }
            drop(tx);
            return sse_response(st.sse_body(rx), None);
        }
    }

    // The standalone stream for unsolicited messages: one per session.
    let hub = StreamHub::new(st.new_stream_id(Some(&session), StreamKind::Get), st.resume_for(0));
    open_get_stream(&st, &session, hub, tx, rx, Vec::new())
}

/// Make `hub` the session's GET stream, replay `missed` on it, and attach it as a listener of
/// the server's notifications. A GET stream still open here is ended first: the newest GET
/// wins. A client reconnects when it lost its stream, and its old connection may not look gone
/// yet (a peer that closed is only noticed at the next write, the keep-alive at the latest),
/// so refusing the new one would lock the client out until then.
fn open_get_stream(
    st: &Arc<HttpState>,
    session: &Arc<Session>,
    hub: Arc<StreamHub>,
    tx: mpsc::Sender<Bytes>,
    rx: mpsc::Receiver<Bytes>,
    missed: Vec<(u64, String)>,
) -> Response {
    let mut slot = session.get_stream.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(old) = slot.as_ref().and_then(|w| w.upgrade()).filter(|h| !h.is_finished()) {
        old.close();
    }
    session.track_stream(&hub);
    *slot = Some(Arc::downgrade(&hub));
    drop(slot);
    if missed.is_empty() {
        let priming = hub.resumable() && session.conn.effective_version() >= ProtocolVersion::V2025_11_25;
        hub.start(tx, priming, Some(st.opts.sse_retry));
    } else {
        hub.reattach(tx, missed);
    }
    let peer: Arc<dyn Peer> = Arc::new(StreamPeer::new(hub.clone(), Some(session.clone()), None, true));
    let listener = st.server.attach_listener(&session.conn, &peer);
    let body = st.sse_body(rx).keep_alive(Box::new((listener, peer))).close_on_drop(hub);
    sse_response(body, None)
}

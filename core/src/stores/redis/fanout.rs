//! The notification fan-out of a fleet over Redis pub/sub: one channel per fleet (under the
//! key prefix). Every instance publishes its fleet-wide notifications there, tagged with a
//! random instance id, and delivers what the others published to its own listeners. Pub/sub
//! is fire-and-forget: an instance that is down (or a Redis that is down) misses what was
//! published meanwhile, as a client whose stream was not open would; the subscriber
//! reconnects on its own.

use redis::AsyncCommands as _;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::RedisStore;
use crate::server::fanout::{Fanout, FanoutEvent};
use crate::server::{Server, WeakServer};

#[derive(Serialize, Deserialize)]
struct Envelope {
    origin: String,
    event: FanoutEvent,
}

/// Publishes this instance's fleet-wide notifications and delivers the other instances'.
pub struct RedisFanout {
    origin: String,
    queue: mpsc::UnboundedSender<FanoutEvent>,
}

impl std::fmt::Debug for RedisFanout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisFanout").field("origin", &self.origin).finish_non_exhaustive()
    }
}

impl RedisFanout {
    /// Start publishing and subscribing for `server` (inside a tokio runtime). Both tasks stop
    /// when the server is dropped.
    pub fn start(redis: &RedisStore, server: &Server) -> RedisFanout {
        let mut id = [0u8; 8];
        let origin = match getrandom::fill(&mut id) {
            Ok(()) => id.iter().map(|b| format!("{b:02x}")).collect(),
            Err(_) => format!("pid-{}", std::process::id()),
        };
        let channel = redis.key("notifications");
        let (queue, rx) = mpsc::unbounded_channel();
        tokio::spawn(publish(redis.clone(), channel.clone(), origin.clone(), rx));
        tokio::spawn(subscribe(redis.client.clone(), channel, origin.clone(), server.downgrade()));
        RedisFanout { origin, queue }
    }

    /// This instance's id on the channel.
    pub fn origin(&self) -> &str {
        &self.origin
    }
}

impl Fanout for RedisFanout {
    fn publish(&self, event: &FanoutEvent) {
        // The publisher ends only with the fan-out itself: nothing to report.
        let _ = self.queue.send(event.clone());
    }
}

/// Publish queued events in order; one that cannot be published (Redis down) is dropped.
async fn publish(redis: RedisStore, channel: String, origin: String, mut rx: mpsc::UnboundedReceiver<FanoutEvent>) {
    while let Some(event) = rx.recv().await {
        let Ok(text) = serde_json::to_string(&Envelope { origin: origin.clone(), event }) else { continue };
        let _: Result<i64, _> = redis.conn().publish(&channel, text).await;
    }
}

/// Deliver what other instances publish to the server's listeners, until the server is gone.
async fn subscribe(client: redis::Client, channel: String, origin: String, server: WeakServer) {
    let deliver = |server: &Server, text: String| match serde_json::from_str::<Envelope>(&text) {
        Ok(e) if e.origin != origin => {
            server.deliver(&e.event);
        }
        _ => {}
    };
    super::pubsub::listen(client, vec![channel], || server.upgrade(), deliver).await;
}

//! The subscriber loop every pub/sub user of a fleet shares (the notification fan-out, the
//! session bus): subscribe, hand each message on, subscribe again after losing Redis, and stop
//! once the owner is gone (checked at every message and now and then while idle).

use std::time::Duration;

use futures::StreamExt as _;

/// How long the subscriber waits before subscribing again after losing Redis.
const RESUBSCRIBE_AFTER: Duration = Duration::from_millis(500);
/// How often an idle subscriber checks that its owner still exists.
const LIVENESS_CHECK: Duration = Duration::from_secs(5);

/// Deliver the messages of `channels` to `deliver` with the owner `upgrade` gives, until it
/// gives none.
pub(super) async fn listen<O>(
    client: redis::Client,
    channels: Vec<String>,
    upgrade: impl Fn() -> Option<O>,
    deliver: impl Fn(&O, String),
) {
    loop {
        if upgrade().is_none() {
            return;
        }
        if let Ok(mut pubsub) = client.get_async_pubsub().await {
            if pubsub.subscribe(&channels[..]).await.is_ok() {
                let mut messages = pubsub.on_message();
                loop {
                    let msg = match tokio::time::timeout(LIVENESS_CHECK, messages.next()).await {
                        Ok(Some(msg)) => msg,
                        Ok(None) => break,
                        Err(_) if upgrade().is_none() => return,
                        Err(_) => continue,
                    };
                    let Some(owner) = upgrade() else { return };
                    if let Ok(text) = msg.get_payload::<String>() {
                        deliver(&owner, text);
                    }
                }
            }
        }
        tokio::time::sleep(RESUBSCRIBE_AFTER).await;
    }
}

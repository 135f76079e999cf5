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
    // Reported once per outage (a warning when it starts, info when it ends), not at every
    // retry.
    let mut down = false;
    loop {
        if upgrade().is_none() {
            return;
        }
        let subscribed = match client.get_async_pubsub().await {
            Ok(mut pubsub) => match pubsub.subscribe(&channels[..]).await {
                Ok(()) => Ok(pubsub),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        match &subscribed {
            Err(e) if !down => {
                down = true;
                tracing::warn!(target: crate::diagnostics::target::STORE, "fleet pub/sub lost; subscribing again every {} ms: {e}", RESUBSCRIBE_AFTER.as_millis());
            }
            Ok(_) if down => {
                down = false;
                tracing::info!(target: crate::diagnostics::target::STORE, "fleet pub/sub subscribed again");
            }
            _ => {}
        }
        if let Ok(mut pubsub) = subscribed {
            {
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

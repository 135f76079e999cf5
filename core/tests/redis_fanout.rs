//! The notification fan-out of a fleet over Redis pub/sub (issue 14), against a real
//! `redis-server`: a resource update published through one instance reaches a
//! `subscriptions/listen` stream on another, a custom notification reaches another instance's
//! handshake-era listener (so does a list change), an instance does not deliver its own
//! notification twice, the instances of another fleet (another key prefix) hear nothing, and a
//! server-wide log message reaches another instance's listener at its level.

mod common;

use std::time::Duration;

use common::redis::RedisServer;
use common::{enveloped, Harness, RecordingPeer};
use ferrite_core::{LoggingLevel, Message, Resource, Server};
use serde_json::{json, Value};

fn instance(redis: &RedisServer, prefix: &str) -> Server {
    let s = common::stateless("fleet");
    s.add_text_resource(Resource::new("test://a", "a"), "A");
    s.enable_resource_subscriptions().unwrap();
    s.use_redis(&redis.url(), prefix).expect("a redis URL");
    s
}

fn listen(h: &Harness, id: i64, filter: Value) -> tokio::task::JoinHandle<()> {
    let (server, conn, peer) = (h.server.clone(), h.conn.clone(), h.peer.clone());
    let msg =
        Message::request(id, "subscriptions/listen", Some(enveloped(json!({ "notifications": filter }), json!({}))));
    tokio::spawn(async move {
        server.handle(msg, &conn, &peer).await;
    })
}

/// The frames of `peer` with `method`, once there are `n` of them (or after two seconds).
async fn frames(peer: &RecordingPeer, method: &str, n: usize) -> Vec<Value> {
    for _ in 0..200 {
        let got: Vec<Value> = peer.frames().into_iter().filter(|f| f["method"] == method).collect();
        if got.len() >= n {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    peer.frames().into_iter().filter(|f| f["method"] == method).collect()
}

/// Wait until the instances' subscribers are on the channel (PUBSUB NUMSUB).
async fn subscribed(redis: &RedisServer, channel: &str, n: i64) {
    let client = redis::Client::open(redis.url()).unwrap();
    let mut c = client.get_multiplexed_async_connection().await.unwrap();
    for _ in 0..200 {
        let counts: Vec<(String, i64)> =
            redis::cmd("PUBSUB").arg("NUMSUB").arg(channel).query_async(&mut c).await.unwrap();
        if counts.first().is_some_and(|(_, k)| *k >= n) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the instances never subscribed to {channel}");
}

#[tokio::test]
async fn a_resource_update_published_on_one_instance_reaches_a_listener_on_another() {
    let redis = RedisServer::start();
    let a = Harness::new(instance(&redis, "f1:"));
    let b = Harness::new(instance(&redis, "f1:"));
    let other_fleet = Harness::new(instance(&redis, "f2:"));
    subscribed(&redis, "f1:notifications", 2).await;
    subscribed(&redis, "f2:notifications", 1).await;
    let stream = listen(&a, 9, json!({"resourceSubscriptions": ["test://a"]}));
    let other = listen(&other_fleet, 9, json!({"resourceSubscriptions": ["test://a"]}));
    for _ in 0..200 {
        if a.server.listen_stream_count() == 1 && other_fleet.server.listen_stream_count() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    assert_eq!(b.server.notify_resource_updated("test://a"), 0, "no listener on B itself");
    let got = frames(&a.recorder, "notifications/resources/updated", 1).await;
    assert_eq!(got.len(), 1, "{:?}", a.recorder.frames());
    assert_eq!(got[0]["params"]["uri"], "test://a");
    assert_eq!(got[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 9);

    // Published on A itself: delivered there once (locally), not a second time from Redis.
    assert_eq!(a.server.notify_resource_updated("test://a"), 1);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(frames(&a.recorder, "notifications/resources/updated", 3).await.len(), 2);
    assert!(
        other_fleet.recorder.frames().iter().all(|f| f["method"] != "notifications/resources/updated"),
        "another fleet's prefix hears nothing"
    );
    stream.abort();
    other.abort();
}

#[tokio::test]
async fn a_custom_notification_reaches_the_handshake_listeners_of_other_instances() {
    let redis = RedisServer::start();
    let a = Harness::new(instance(&redis, "f3:"));
    let b = instance(&redis, "f3:");
    subscribed(&redis, "f3:notifications", 2).await;
    a.initialize("2025-11-25", json!({})).await;
    let _guard = a.server.attach_listener(&a.conn, &a.peer);
    b.notify("notifications/message", Some(json!({"level": "info", "data": "from B"})));
    let got = frames(&a.recorder, "notifications/message", 1).await;
    assert_eq!(got.len(), 1, "{:?}", a.recorder.frames());
    assert_eq!(got[0]["params"]["data"], "from B");
    // A list change announced on B (the application changed what the fleet serves).
    assert_eq!(b.notify_tools_list_changed(), 0);
    assert_eq!(frames(&a.recorder, "notifications/tools/list_changed", 1).await.len(), 1);
}

#[tokio::test]
async fn a_log_message_sent_on_one_instance_reaches_the_listeners_of_another_at_their_level() {
    let redis = RedisServer::start();
    let a = Harness::new(instance(&redis, "f5:"));
    let b = instance(&redis, "f5:");
    subscribed(&redis, "f5:notifications", 2).await;
    a.initialize("2025-11-25", json!({})).await;
    let _guard = a.server.attach_listener(&a.conn, &a.peer);
    // A's connection keeps the default minimum, info: the debug message is dropped there, the
    // one for another session too, and the warning for A's session arrives (in that order
    // from B, so only the last can be the one frame A gets).
    assert_eq!(b.send_log_message(LoggingLevel::Debug, json!("too low"), None, None), 0);
    assert_eq!(b.send_log_message(LoggingLevel::Error, json!("elsewhere"), None, Some("no-such-session")), 0);
    b.send_log_message(LoggingLevel::Warning, json!("from B"), Some("fleet"), Some(a.conn.id()));
    let got = frames(&a.recorder, "notifications/message", 1).await;
    assert_eq!(got.len(), 1, "{:?}", a.recorder.frames());
    assert_eq!(got[0]["params"], json!({"level": "warning", "data": "from B", "logger": "fleet"}));
}

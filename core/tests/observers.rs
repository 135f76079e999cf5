//! Observers of client notifications and of roots/list_changed.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use common::{stateful, Harness};
use serde_json::{json, Value};

#[tokio::test]
async fn notification_observer_sees_every_client_notification() {
    let s = stateful("obs");
    type Seen = Vec<(String, Option<Value>)>;
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let sink = seen.clone();
    s.set_notification_observer(move |method: &str, params: Option<&Value>| {
        sink.lock().unwrap().push((method.to_owned(), params.cloned()));
    });
    let h = Harness::new(s);
    h.notify("notifications/initialized", Value::Null).await;
    h.notify("notifications/custom", json!({"x": 1})).await;
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            ("notifications/initialized".to_owned(), None),
            ("notifications/custom".to_owned(), Some(json!({"x": 1})))
        ]
    );
}

#[tokio::test]
async fn roots_observer_fires_on_roots_list_changed_only() {
    let s = stateful("roots");
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    s.set_roots_list_changed_observer(move || {
        c.fetch_add(1, Ordering::SeqCst);
    });
    let h = Harness::new(s);
    h.notify("notifications/roots/list_changed", Value::Null).await;
    h.notify("notifications/other", Value::Null).await;
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

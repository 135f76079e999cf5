//! Run a future inline when it finishes without waiting, and spawn it only when it must
//! wait: most handlers (a tool that computes and returns) never wait, and a task per request
//! would cost them a spawn, a wake-up and a cross-thread hand-off.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// Poll `work` once with a waker that does nothing. `Ready` is its output; `Pending` gives the
/// future back, to be spawned (a spawned task is polled again at once and registers its real
/// waker, so nothing is lost).
pub(crate) fn poll_once<F: Future + ?Sized>(mut work: Pin<Box<F>>) -> Result<F::Output, Pin<Box<F>>> {
    match work.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => Ok(out),
        Poll::Pending => Err(work),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_future_that_does_not_wait_is_ready() {
        assert_eq!(poll_once(Box::pin(async { 7 })).ok(), Some(7));
    }

    #[tokio::test]
    async fn a_future_that_waits_comes_back_and_still_completes() {
        let (tx, rx) = tokio::sync::oneshot::channel::<u8>();
        let work = match poll_once(Box::pin(async move { rx.await.unwrap() })) {
            Ok(_) => panic!("it has to wait"),
            Err(w) => w,
        };
        let task = tokio::spawn(work);
        tx.send(3).unwrap();
        assert_eq!(task.await.unwrap(), 3);
    }
}

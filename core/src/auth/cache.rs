//! Verified tokens remembered by their SHA-256 (never the token itself), bounded and
//! expiring: a client sends the same token on every request, and checking a signature or
//! calling an introspection endpoint costs far more than the rest of a call.

use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use super::{now_secs, Identity};

/// A bounded cache of verified identities; a capacity or lifetime of 0 turns it off.
pub(crate) struct VerifiedCache {
    ttl: Duration,
    entries: Option<quick_cache::sync::Cache<[u8; 32], (Identity, Instant)>>,
}

impl VerifiedCache {
    pub(crate) fn new(ttl: Duration, capacity: u64) -> Self {
        let on = capacity > 0 && !ttl.is_zero();
        VerifiedCache { ttl, entries: on.then(|| quick_cache::sync::Cache::new(capacity as usize)) }
    }

    /// The identity a token was verified as, while it is fresh and the token unexpired.
    pub(crate) fn get(&self, token: &str) -> Option<Identity> {
        let entries = self.entries.as_ref()?;
        let key = digest(token);
        let (id, until) = entries.get(&key)?;
        if Instant::now() < until && id.expires_at().is_none_or(|e| e > now_secs()) {
            return Some(id);
        }
        entries.remove(&key);
        None
    }

    /// Remember a verified token until the lifetime passes or the token expires.
    pub(crate) fn insert(&self, token: &str, id: &Identity) {
        let Some(entries) = &self.entries else { return };
        let mut until = Instant::now() + self.ttl;
        if let Some(exp) = id.expires_at() {
            until = until.min(Instant::now() + Duration::from_secs(exp.saturating_sub(now_secs())));
        }
        entries.insert(digest(token), (id.clone(), until));
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

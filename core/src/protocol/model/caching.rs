//! Caching hints (2026-07-28, SEP-2549): `ttlMs` and `cacheScope` on complete results of
//! `server/discover`, the `*/list` methods and `resources/read`.

use serde::{Deserialize, Serialize};

/// Who may share a cached result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Holds no per-user data: any cache may serve it to anyone.
    Public,
    /// Per authorization context: caches must not share it across tokens. The default, the
    /// safe choice when a server cannot tell.
    #[default]
    Private,
}

/// A cache hint: how long a result stays fresh, and who may share it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct CacheHint {
    /// Milliseconds the result stays fresh; 0 means stale at once.
    pub ttl_ms: u64,
    /// Who may share it.
    pub cache_scope: CacheScope,
}

impl CacheHint {
    /// A hint.
    pub const fn new(ttl_ms: u64, cache_scope: CacheScope) -> Self {
        CacheHint { ttl_ms, cache_scope }
    }
    /// Stale at once, per user: what a server says when it promises nothing.
    pub const NONE: CacheHint = CacheHint::new(0, CacheScope::Private);
}

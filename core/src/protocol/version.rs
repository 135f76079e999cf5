//! Protocol revisions as a closed enum.
//!
//! Revision strings are dates, and it is tempting to compare them as strings. The spec says
//! not to: an unknown string is not "newer" or "older", it is unsupported. So versions are
//! parsed into [`ProtocolVersion`] (unknown strings are rejected) and ordering is only defined
//! between known revisions.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A released MCP revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// The first revision: stdio and HTTP+SSE.
    V2024_11_05,
    /// Streamable HTTP, batching, tool annotations, audio content.
    V2025_03_26,
    /// Structured tool output, elicitation, resource links; batching removed.
    V2025_06_18,
    /// Icons, URL elicitation, tasks; the last handshake revision.
    V2025_11_25,
    /// The stateless revision: per-request `_meta` envelope, no `initialize`.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Revisions that use the `initialize` handshake, oldest first.
    pub const HANDSHAKE: [ProtocolVersion; 4] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
    ];

    /// Every revision this crate knows, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The newest revision that uses the `initialize` handshake.
    pub const LATEST_HANDSHAKE: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The revision assumed by Streamable HTTP when no `MCP-Protocol-Version` header is sent.
    pub const HTTP_DEFAULT: ProtocolVersion = ProtocolVersion::V2025_03_26;

    /// The revision named `s`, if Ferrite knows it (no allocation either way).
    pub fn known(s: &str) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// The wire string of this revision.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether this revision uses the `initialize` handshake (everything before 2026-07-28).
    pub const fn is_handshake(self) -> bool {
        !matches!(self, ProtocolVersion::V2026_07_28)
    }

    /// Whether JSON-RPC batches may be received under this revision (only 2025-03-26).
    pub const fn allows_batches(self) -> bool {
        matches!(self, ProtocolVersion::V2025_03_26)
    }

    /// Whether `self` is at least `other`. Only meaningful between known revisions, which is
    /// all this type can hold.
    pub fn at_least(self, other: ProtocolVersion) -> bool {
        self >= other
    }

    /// The answer to an `initialize` that asked for `requested`: echo it when it is a
    /// supported handshake revision, otherwise offer the latest handshake revision.
    pub fn negotiate(requested: &str) -> ProtocolVersion {
        match requested.parse::<ProtocolVersion>() {
            Ok(v) if v.is_handshake() => v,
            _ => ProtocolVersion::LATEST_HANDSHAKE,
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A revision string that is not one this crate supports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unsupported protocol version {0:?}")]
pub struct UnsupportedVersion(pub String);

impl FromStr for ProtocolVersion {
    type Err = UnsupportedVersion;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProtocolVersion::known(s).ok_or_else(|| UnsupportedVersion(s.to_owned()))
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_echoes_supported_and_counter_offers_latest() {
        assert_eq!(ProtocolVersion::negotiate("2024-11-05"), ProtocolVersion::V2024_11_05);
        assert_eq!(ProtocolVersion::negotiate("2025-06-18"), ProtocolVersion::V2025_06_18);
        // Unknown strings are never ordered: a "future" date is not echoed.
        assert_eq!(ProtocolVersion::negotiate("2099-01-01"), ProtocolVersion::V2025_11_25);
        assert_eq!(ProtocolVersion::negotiate("garbage"), ProtocolVersion::V2025_11_25);
        // The stateless revision is not negotiated through initialize.
        assert_eq!(ProtocolVersion::negotiate("2026-07-28"), ProtocolVersion::V2025_11_25);
    }

    #[test]
    fn only_2025_03_26_allows_batches() {
        let allowed: Vec<_> = ProtocolVersion::ALL.into_iter().filter(|v| v.allows_batches()).collect();
        assert_eq!(allowed, vec![ProtocolVersion::V2025_03_26]);
    }

    #[test]
    fn parse_rejects_unknown() {
        assert!("2025-13-01".parse::<ProtocolVersion>().is_err());
        assert_eq!("2025-03-26".parse::<ProtocolVersion>().unwrap(), ProtocolVersion::V2025_03_26);
    }
}

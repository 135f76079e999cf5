//! Serde types for the MCP messages a server sends and receives, across every revision.
//!
//! One set of types covers all revisions: fields that only exist from some revision on are
//! optional, and [`ForVersion`] strips what the negotiated revision does not know before
//! anything goes on the wire (what the design calls `Implementation.forVersion`).
//! The types are hand-written rather than taken from a schema crate so that one type per
//! concept serves every revision (schema crates generate one module per revision, which would
//! push a conversion onto every request).
//!
//! One module per concept: [`lifecycle`] (implementations, capabilities, `initialize`),
//! [`content`], [`tools`], [`resources`], [`prompts`], [`completion`], [`logging`],
//! [`client_requests`] (sampling, elicitation, roots), and for 2026-07-28 the per-request
//! [`envelope`], [`mrtr`] (input-required replies), [`caching`] hints and
//! [`subscriptions`] (listen filters); [`tasks`] for both generations of tasks. Everything is re-exported here.

use serde_json::{Map, Value};

use super::version::ProtocolVersion;

pub mod caching;
pub mod client_requests;
pub mod completion;
pub mod content;
pub mod elicit_answer;
pub mod elicit_schema;
pub mod envelope;
pub mod lifecycle;
pub mod logging;
pub mod mrtr;
pub mod prompts;
pub mod resources;
pub mod subscriptions;
pub mod tasks;
pub mod tools;

pub use caching::*;
pub use client_requests::*;
pub use completion::*;
pub use content::*;
pub use elicit_answer::{check_answer, ElicitAnswerError};
pub use elicit_schema::{check_requested_schema, ElicitSchemaError};
pub use envelope::*;
pub use lifecycle::*;
pub use logging::*;
pub use mrtr::*;
pub use prompts::*;
pub use resources::*;
pub use subscriptions::*;
pub use tasks::*;
pub use tools::*;

/// `_meta`: a free-form object of metadata.
pub type Meta = Map<String, Value>;

/// Strip fields that did not exist in a revision.
pub trait ForVersion: Sized {
    /// Remove fields newer than `v`, in place.
    fn strip_for(&mut self, v: ProtocolVersion);
    /// A copy with fields newer than `v` removed.
    fn for_version(&self, v: ProtocolVersion) -> Self
    where
        Self: Clone,
    {
        let mut c = self.clone();
        c.strip_for(v);
        c
    }
}

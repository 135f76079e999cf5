//! How configuration mistakes reach JavaScript: as the built-in error classes the package
//! already throws for misuse, with a Node-style `code`.
//!
//! | core error | JS class | `code` |
//! |---|---|---|
//! | `ConfigError::NeedsStateful`, `ConfigError::TasksStarted` | `Error` | `ERR_INVALID_STATE` |
//! | every other `ConfigError` (invalid schema, template, `x-mcp-header`, `execution.taskSupport`, reserved method, extension id, unknown tool or resource, a bad Redis URL) | `TypeError` | `ERR_INVALID_ARG_VALUE` |
//! | `SkillError::Io` (reading a skill directory) | `Error` | `ERR_FERRITE_IO` |
//! | every other `SkillError`, a bad sealing key, cache hint, state lifetime, input request | `TypeError` | `ERR_INVALID_ARG_VALUE` |
//! | `AuthConfigError` (a bad `auth` option; its key camelCase, see `auth.rs`) | `TypeError` | `ERR_INVALID_ARG_VALUE` |
//! | `LimitsError` (a bad limit; its key camelCase, see `limits.rs`) | `TypeError` | `ERR_INVALID_ARG_VALUE` |
//!
//! The error is thrown on the JS side by the native call itself (`napi_throw_type_error`),
//! and the call returns `PendingException`, which napi leaves pending.

use ferrite_core::skills::SkillError;
use ferrite_core::ConfigError;
use napi::{Env, Error, Status};

/// The `code` of an invalid argument value (as Node's own `ERR_INVALID_ARG_VALUE`).
pub(crate) const INVALID_ARG: &str = "ERR_INVALID_ARG_VALUE";
/// The `code` of an operation the server's state does not allow.
pub(crate) const INVALID_STATE: &str = "ERR_INVALID_STATE";
/// The `code` of a file-system failure.
pub(crate) const IO: &str = "ERR_FERRITE_IO";

/// Throw a `TypeError` with `code` and return the error that leaves it pending.
pub(crate) fn type_error(env: &Env, message: impl std::fmt::Display) -> Error {
    pending(env.throw_type_error(&message.to_string(), Some(INVALID_ARG)), message)
}

/// Throw an `Error` with `code` and return the error that leaves it pending.
pub(crate) fn plain_error(env: &Env, code: &str, message: impl std::fmt::Display) -> Error {
    pending(env.throw_error(&message.to_string(), Some(code)), message)
}

fn pending(thrown: napi::Result<()>, message: impl std::fmt::Display) -> Error {
    match thrown {
        Ok(()) => Error::new(Status::PendingException, message.to_string()),
        // The environment could not throw (it is shutting down): report the message anyway.
        Err(_) => Error::from_reason(message.to_string()),
    }
}

/// A core configuration error as the JS error class its variant maps to (see the table).
pub(crate) fn config(env: &Env, e: ConfigError) -> Error {
    match e {
        ConfigError::NeedsStateful(_) | ConfigError::TasksStarted => plain_error(env, INVALID_STATE, &e),
        _ => type_error(env, &e),
    }
}

/// A skill the core refused, as the JS error class its variant maps to (see the table).
pub(crate) fn skill(env: &Env, e: SkillError) -> Error {
    match e {
        SkillError::Io(_) => plain_error(env, IO, &e),
        _ => type_error(env, &e),
    }
}

//! The HTTP options of `Server.run(transport="http", ...)`, handed to the core's
//! [`HttpConfig`] unchanged in meaning: the Python half gathers its keyword arguments into a
//! dict of `HttpConfig` keys (snake_case), and every check is the core's, so a bad option
//! raises the same text here as on every other surface (`ConfigError: invalid HTTP option
//! max_body_bytes: must be at least 1 byte, not 0`).

use std::net::SocketAddr;

use ferrite_core::transport::http::{HttpConfig, HttpOptions};
use pyo3::prelude::*;
use tokio_util::sync::CancellationToken;

use crate::{convert, errors};

/// The options and address a dict of `HttpConfig` keys describes; `ConfigError` (the core's
/// message) when one is bad. Nothing is bound yet.
pub fn options(py: Python<'_>, config: &Bound<'_, PyAny>) -> PyResult<(HttpOptions, SocketAddr)> {
    // A value JSON cannot hold (NaN, an object of no JSON type) is a bad option too.
    let value = convert::from_py(config).map_err(|e| errors::config_msg(py, &format!("invalid HTTP options: {e}")))?;
    let config = HttpConfig::from_value(value).map_err(|e| errors::config_msg(py, &e.to_string()))?;
    let mut options = HttpOptions { shutdown: CancellationToken::new(), ..HttpOptions::default() };
    config.apply(&mut options).map_err(|e| errors::config_msg(py, &e.to_string()))?;
    let addr = config.socket_addr().map_err(|e| errors::config_msg(py, &e.to_string()))?;
    Ok((options, addr))
}

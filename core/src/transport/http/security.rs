//! DNS-rebinding protection: the `Host` and `Origin` of each request are checked against an
//! allow-list. The default allows loopback names on any port, which is right for a server
//! bound to 127.0.0.1; a real deployment configures its own names.

/// Which `Host` and `Origin` values are accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPolicy {
    /// Accepted host names (without port; IPv6 in brackets). `None` disables the check.
    pub allowed_hosts: Option<Vec<String>>,
    /// Accepted origins (`scheme://host`, any port). `None` disables the check. Requests
    /// without an `Origin` header are accepted (non-browser clients send none).
    pub allowed_origins: Option<Vec<String>>,
}

impl Default for HostPolicy {
    fn default() -> Self {
        let hosts = ["localhost", "127.0.0.1", "[::1]"];
        HostPolicy {
            allowed_hosts: Some(hosts.iter().map(|h| h.to_string()).collect()),
            allowed_origins: Some(hosts.iter().flat_map(|h| [format!("http://{h}"), format!("https://{h}")]).collect()),
        }
    }
}

impl HostPolicy {
    /// Accept every host and origin (behind a proxy that checks them, for example).
    pub fn permissive() -> Self {
        HostPolicy { allowed_hosts: None, allowed_origins: None }
    }

    /// Whether `Host` is checked (not [`HostPolicy::permissive`]).
    pub fn checks_hosts(&self) -> bool {
        self.allowed_hosts.is_some()
    }

    /// Whether a request with this `Host` (required) and `Origin` (optional) is allowed.
    pub fn allows(&self, host: Option<&str>, origin: Option<&str>) -> Result<(), &'static str> {
        if let Some(allowed) = &self.allowed_hosts {
            let host = host.ok_or("missing Host header")?;
            let name = strip_port(host);
            if !allowed.iter().any(|a| a.eq_ignore_ascii_case(name)) {
                return Err("Host not allowed");
            }
        }
        if let (Some(allowed), Some(origin)) = (&self.allowed_origins, origin) {
            let Some((scheme, rest)) = origin.split_once("://") else { return Err("Origin not allowed") };
            let base = format!("{scheme}://{}", strip_port(rest.trim_end_matches('/')));
            if !allowed.iter().any(|a| a.eq_ignore_ascii_case(&base)) {
                return Err("Origin not allowed");
            }
        }
        Ok(())
    }
}

/// Check one `allowed_hosts` entry as [`HostPolicy::allows`] compares it: a bare host name
/// (no scheme, port or path; any port is accepted), IPv6 in brackets. The error says why not.
/// Every surface validates its configuration with this, so a mistyped entry is refused where
/// it is written instead of silently refusing every request.
pub fn check_host_entry(host: &str) -> Result<(), &'static str> {
    if host.is_empty() {
        return Err("empty");
    }
    if host.contains("://") {
        return Err("a host name, not a URL (origins go in the allowed origins)");
    }
    if host.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, '/' | '?' | '#' | '@')) {
        return Err("a bare host name is expected (no path, user or spaces)");
    }
    if let Some(inner) = host.strip_prefix('[') {
        let ip = inner.strip_suffix(']').ok_or("no closing ']'")?;
        return ip.parse::<std::net::Ipv6Addr>().map(|_| ()).map_err(|_| "not an IPv6 address in brackets");
    }
    if host.contains(':') {
        return Err("no port (any port is accepted); write IPv6 addresses in brackets, like [::1]");
    }
    Ok(())
}

/// Check one `allowed_origins` entry: `scheme://host`, no port (any port is accepted), no path.
pub fn check_origin_entry(origin: &str) -> Result<(), &'static str> {
    const FORM: &str = "an origin is scheme://host, like http://localhost";
    let (scheme, host) = origin.split_once("://").ok_or(FORM)?;
    if scheme.is_empty() || !scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) {
        return Err(FORM);
    }
    if host.ends_with('/') {
        return Err("no trailing '/' or path");
    }
    check_host_entry(host)
}

/// `host:port` → `host`; `[::1]:port` → `[::1]`.
fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return match host.find(']') {
            Some(i) => &host[..=i],
            None => host,
        };
    }
    match host.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_on_any_port_are_allowed() {
        let p = HostPolicy::default();
        for h in ["localhost", "localhost:3000", "127.0.0.1:8080", "[::1]:1", "[::1]", "LOCALHOST:1"] {
            assert!(p.allows(Some(h), None).is_ok(), "{h}");
        }
        for o in ["http://localhost:5173", "https://127.0.0.1", "http://[::1]:9"] {
            assert!(p.allows(Some("localhost"), Some(o)).is_ok(), "{o}");
        }
    }

    #[test]
    fn entries_are_checked_as_they_are_compared() {
        for ok in ["localhost", "mcp.example.com", "127.0.0.1", "[::1]"] {
            assert!(check_host_entry(ok).is_ok(), "{ok}");
        }
        for bad in ["", "example.com:8080", "http://x", "a/b", "[::1", "[nope]", "a b"] {
            assert!(check_host_entry(bad).is_err(), "{bad:?}");
        }
        assert!(check_origin_entry("https://app.example.com").is_ok());
        for bad in ["app.example.com", "http://x:80", "http://x/", "://x"] {
            assert!(check_origin_entry(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn foreign_hosts_and_origins_are_refused() {
        let p = HostPolicy::default();
        assert!(p.allows(Some("evil.example.com"), None).is_err());
        assert!(p.allows(Some("localhost.evil.com:80"), None).is_err());
        assert!(p.allows(None, None).is_err());
        assert!(p.allows(Some("localhost"), Some("http://evil.example.com")).is_err());
        assert!(p.allows(Some("localhost"), Some("null")).is_err());
        assert!(HostPolicy::permissive().allows(Some("evil.example.com"), Some("http://x")).is_ok());
    }
}

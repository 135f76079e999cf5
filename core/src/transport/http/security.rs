//! DNS-rebinding protection: the `Host` and `Origin` of each request are checked against an
//! allow-list. The default allows loopback names on any port, which is right for a server
//! bound to 127.0.0.1; a real deployment configures its own names.

/// Which `Host` and `Origin` values are accepted.
#[derive(Debug, Clone)]
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

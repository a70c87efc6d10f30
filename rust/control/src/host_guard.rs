//! DNS-rebinding guard: control answers only requests addressed to a name it knows. A web page on
//! attacker.example whose DNS later points at 127.0.0.1 reaches a loopback control with
//! `Host: attacker.example`; without this check its scripts could start runs and report results.
use axum::{extract::{Request, State}, middleware::Next, response::{IntoResponse, Response}};
use http::{header::HOST, StatusCode};
use std::sync::Arc;

/// Host names (without port) control answers to: loopback names, the address it listens on, and
/// whatever `--allow-host` adds.
#[derive(Clone)]
pub struct Allowed(pub Arc<Vec<String>>);

impl Allowed {
    pub fn new(listen: std::net::SocketAddr, extra: &[String]) -> Self {
        let mut names: Vec<String> = ["127.0.0.1", "localhost", "[::1]"].iter().map(|s| s.to_string()).collect();
        if !listen.ip().is_unspecified() {
            names.push(match listen.ip() {
                std::net::IpAddr::V6(ip) => format!("[{ip}]"),
                ip => ip.to_string(),
            });
        }
        names.extend(extra.iter().map(|h| h.to_ascii_lowercase()));
        names.dedup();
        Allowed(Arc::new(names))
    }

    /// Whether `authority` (a Host header or an HTTP/2 :authority, with or without a port) names
    /// one of the allowed hosts.
    pub fn allows(&self, authority: &str) -> bool {
        let host = match authority.rfind(':') {
            // "[::1]:7600" and "name:7600" lose the port; a bare "[::1]" has none.
            Some(i) if !authority[i..].contains(']') => &authority[..i],
            _ => authority,
        };
        let host = host.to_ascii_lowercase();
        self.0.iter().any(|a| *a == host)
    }
}

pub async fn guard(State(allowed): State<Allowed>, req: Request, next: Next) -> Response {
    let authority = req.headers().get(HOST).and_then(|h| h.to_str().ok()).map(str::to_string)
        .or_else(|| req.uri().authority().map(|a| a.as_str().to_string()));
    match authority {
        Some(a) if allowed.allows(&a) => next.run(req).await,
        other => (
            StatusCode::UNAUTHORIZED,
            format!("control does not answer to host {:?} (a guard against DNS rebinding); it answers to {}; start it with --allow-host NAME to add a name\n",
                other.unwrap_or_default(), allowed.0.join(", ")),
        ).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_and_added_hosts_pass_others_do_not() {
        let a = Allowed::new("127.0.0.1:7600".parse().unwrap(), &["Bench.Lan".into()]);
        for ok in ["127.0.0.1:7600", "127.0.0.1", "localhost:1", "LOCALHOST", "[::1]:7600", "[::1]", "bench.lan:7600"] {
            assert!(a.allows(ok), "{ok}");
        }
        for no in ["attacker.example:7600", "attacker.example", "127.0.0.1.attacker.example", "", "127.0.0.2:7600", "localhost.:7600"] {
            assert!(!a.allows(no), "{no}");
        }
        let any = Allowed::new("0.0.0.0:7600".parse().unwrap(), &[]);
        assert!(!any.allows("0.0.0.0:7600"), "listening everywhere names no host");
        let v6 = Allowed::new("[::1]:7600".parse().unwrap(), &[]);
        assert!(v6.allows("[::1]:7600"));
    }
}

//! Who control answers. Two checks on every request (gRPC, gRPC-web, reflection, health, the page):
//! - the DNS-rebinding guard: the request must be addressed to a name control knows. A web page on
//!   attacker.example whose DNS later points at 127.0.0.1 reaches a loopback control with
//!   `Host: attacker.example`; without this check its scripts could start runs and report results.
//! - the token, when one is configured (required to listen beyond loopback): `authorization:
//!   Bearer TOKEN` on gRPC and gRPC-web calls; the page is opened once as `/?token=TOKEN`, which
//!   sets an HttpOnly, SameSite=Strict cookie that its later requests (assets, gRPC-web) carry.
use axum::{extract::{Request, State}, middleware::Next, response::{IntoResponse, Response}};
use http::{header::{AUTHORIZATION, CONTENT_TYPE, COOKIE, HOST, SET_COOKIE}, HeaderValue, StatusCode};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The cookie the page carries after it was opened with `?token=`.
const COOKIE_NAME: &str = "codecbench_token";

/// Whether two secrets are equal, in time that does not depend on where they first differ: the
/// SHA-256 digests are compared, so timing reveals at most a prefix of a digest, which says nothing
/// usable about the secret.
pub fn same_secret(expected: &str, given: &str) -> bool {
    !expected.is_empty() && Sha256::digest(expected.as_bytes()) == Sha256::digest(given.as_bytes())
}

#[derive(Clone)]
pub struct Access {
    pub allowed: Allowed,
    pub token: Option<Arc<str>>,
}

impl Access {
    /// What a request proves about the token: `Some(true)` when it came as `?token=` (the page's
    /// first load, which then gets the cookie), `Some(false)` by header or cookie, `None` not at all.
    fn token_proof(&self, req: &Request) -> Option<bool> {
        let Some(token) = self.token.as_deref() else { return Some(false) };
        let headers = req.headers();
        let bearer = headers.get_all(AUTHORIZATION).iter().filter_map(|v| v.to_str().ok())
            .filter_map(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")));
        let cookie = headers.get_all(COOKIE).iter().filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';')).filter_map(|c| c.trim().strip_prefix(COOKIE_NAME)?.strip_prefix('='));
        if bearer.chain(cookie).any(|t| same_secret(token, t.trim())) {
            return Some(false);
        }
        let query = req.uri().query().unwrap_or("");
        query.split('&').filter_map(|kv| kv.strip_prefix("token="))
            .any(|t| same_secret(token, t))
            .then_some(true)
    }
}

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

fn is_grpc(req: &Request) -> bool {
    req.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("application/grpc"))
}

/// A refusal a client can read: gRPC and gRPC-web callers get `UNAUTHENTICATED` with the message
/// as their status (grpcurl and the workers print it); anything else a plain-text 401. gRPC-web
/// is HTTP/1.1 that pages and proxies read by its HTTP status, so it is a 401 too (with the gRPC
/// status headers); gRPC over HTTP/2 keeps 200, since its clients would drop the message otherwise.
fn refuse(req: &Request, msg: String) -> Response {
    if is_grpc(req) {
        let mut resp = tonic::Status::unauthenticated(msg.trim_end()).into_http::<axum::body::Body>();
        if let Some(ct) = req.headers().get(CONTENT_TYPE) {
            resp.headers_mut().insert(CONTENT_TYPE, ct.clone());
            if ct.to_str().is_ok_and(|v| v.starts_with("application/grpc-web")) {
                *resp.status_mut() = StatusCode::UNAUTHORIZED;
            }
        }
        return resp;
    }
    (StatusCode::UNAUTHORIZED, msg).into_response()
}

pub async fn guard(State(access): State<Access>, req: Request, next: Next) -> Response {
    let authority = req.headers().get(HOST).and_then(|h| h.to_str().ok()).map(str::to_string)
        .or_else(|| req.uri().authority().map(|a| a.as_str().to_string()));
    if !authority.as_deref().is_some_and(|a| access.allowed.allows(a)) {
        let msg = format!("control does not answer to host {:?} (a guard against DNS rebinding); it answers to {}; start it with --allow-host NAME to add a name\n",
            authority.unwrap_or_default(), access.allowed.0.join(", "));
        return refuse(&req, msg);
    }
    match access.token_proof(&req) {
        Some(false) => next.run(req).await,
        // Only the page's own GET may carry the token in its URL; it gets the cookie for the rest.
        Some(true) if req.method() == http::Method::GET && !is_grpc(&req) => {
            let token = access.token.as_deref().unwrap_or_default().to_string();
            let mut resp = next.run(req).await;
            if let Ok(v) = HeaderValue::from_str(&format!("{COOKIE_NAME}={token}; Path=/; HttpOnly; SameSite=Strict")) {
                resp.headers_mut().append(SET_COOKIE, v);
            }
            resp
        }
        _ => refuse(&req, "control requires its token: gRPC calls send the header `authorization: Bearer TOKEN` \
(grpcurl -H 'authorization: Bearer TOKEN'; the CLI and the workers read it from CODECBENCH_TOKEN or --token-file), \
and the page is opened as /?token=TOKEN\n".to_string()),
    }
}

/// The token control requires, from `--token-file` (or `CODECBENCH_TOKEN_FILE`) or else the
/// `CODECBENCH_TOKEN` variable; `None` when neither is set. A token is at least 16 letters, digits,
/// '.', '_' or '-' (it travels in a header, a cookie and a URL).
pub fn load_token(file: Option<&std::path::Path>, env: Option<String>) -> anyhow::Result<Option<Arc<str>>> {
    let (token, origin) = match (file, env) {
        (Some(f), _) => (std::fs::read_to_string(f).map_err(|e| anyhow::anyhow!("reading the token file {}: {e}", f.display()))?,
                         format!("the token file {}", f.display())),
        (None, Some(t)) => (t, "CODECBENCH_TOKEN".to_string()),
        (None, None) => return Ok(None),
    };
    let token = token.trim();
    // Characters a URL query carries unescaped, so `?token=` compares as written.
    if token.len() < 16 || !token.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')) {
        anyhow::bail!("{origin} must hold a token of at least 16 characters, each a letter, a digit, '.', '_' or '-' (e.g. `openssl rand -hex 32`)");
    }
    Ok(Some(token.into()))
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

    fn request(uri: &str, headers: &[(&str, &str)]) -> Request {
        let mut b = http::Request::builder().uri(uri);
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(axum::body::Body::empty()).unwrap()
    }

    #[test]
    fn the_token_is_accepted_by_header_cookie_or_page_query_and_nothing_else() {
        let token = "0123456789abcdef0123";
        let a = Access { allowed: Allowed::new("127.0.0.1:7600".parse().unwrap(), &[]), token: Some(token.into()) };
        assert_eq!(a.token_proof(&request("/", &[("authorization", "Bearer 0123456789abcdef0123")])), Some(false));
        assert_eq!(a.token_proof(&request("/", &[("cookie", "a=b; codecbench_token=0123456789abcdef0123")])), Some(false));
        assert_eq!(a.token_proof(&request("/?x=1&token=0123456789abcdef0123", &[])), Some(true));
        for (uri, headers) in [
            ("/", vec![]),
            ("/", vec![("authorization", "Bearer 0123456789abcdef012")]),
            ("/", vec![("authorization", "0123456789abcdef0123")]),
            ("/", vec![("cookie", "codecbench_token=wrong")]),
            ("/", vec![("cookie", "xcodecbench_token=0123456789abcdef0123")]),
            ("/?token=0123456789abcdef01234", vec![]),
            ("/?xtoken=0123456789abcdef0123", vec![]),
        ] {
            assert_eq!(a.token_proof(&request(uri, &headers)), None, "{uri} {headers:?}");
        }
        let open = Access { allowed: a.allowed.clone(), token: None };
        assert_eq!(open.token_proof(&request("/", &[])), Some(false), "no token configured: nothing to prove");
    }

    #[test]
    fn secrets_compare_equal_only_when_equal_and_never_when_empty() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd") && !same_secret("abc", "ab") && !same_secret("abc", ""));
        assert!(!same_secret("", ""), "an unset secret matches nothing");
    }

    #[test]
    fn tokens_are_long_printable_and_trimmed() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("token");
        std::fs::write(&f, "  0123456789abcdef  \n").unwrap();
        assert_eq!(load_token(Some(f.as_path()), Some("ignored-when-a-file-is-given".into())).unwrap().as_deref(), Some("0123456789abcdef"));
        assert_eq!(load_token(None, None).unwrap(), None);
        for bad in ["short", "0123456789abcdef 0123", "0123456789abcdef;x", "0123456789abcdéf0"] {
            assert!(load_token(None, Some(bad.into())).is_err(), "{bad}");
        }
        let missing = load_token(Some(dir.path().join("nope").as_path()), None).unwrap_err().to_string();
        assert!(missing.contains("reading the token file"), "{missing}");
    }
}

//! Who a blob call comes from, for the upload caps (blobs.rs): one allowance per attached worker
//! that names itself with its report secret, and one shared by the clients that do not — the
//! token's holders when control has a token, else the anonymous clients on loopback. An address
//! is never the key: one machine has many loopback addresses (127.0.0.2...), and clients behind a
//! proxy share one.
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use tonic::{Request, Status};

/// The metadata header a worker's blob calls carry its report secret in (the one `attached` gave).
pub const SECRET_HEADER: &str = "codecbench-report-secret";

/// The key of the clients without a worker secret, with a token configured or without one.
pub const TOKEN_HOLDERS: &str = "the clients without a worker secret (token holders)";
pub const LOOPBACK: &str = "the clients without a worker secret (anonymous, on loopback)";

#[derive(Default)]
pub struct Clients {
    /// Attached workers by the SHA-256 of their report secret (a lookup by digest: its timing
    /// says nothing usable about a secret).
    by_secret: Mutex<HashMap<[u8; 32], String>>,
    /// Whether control requires a token (then every caller holds it, loopback ones too).
    token: bool,
}

impl Clients {
    pub fn new(token: bool) -> Self {
        Clients { by_secret: Mutex::new(HashMap::new()), token }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], String>> {
        self.by_secret.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn attached(&self, secret: &str, worker_id: &str) {
        if !secret.is_empty() {
            self.lock().insert(Sha256::digest(secret.as_bytes()).into(), worker_id.to_string());
        }
    }

    pub fn detached(&self, worker_id: &str) {
        self.lock().retain(|_, id| id != worker_id);
    }

    /// The caller's key for the upload caps. A secret that names no attached worker is refused
    /// rather than counted with the anonymous clients: the caller meant to be a worker.
    pub fn key<T>(&self, request: &Request<T>) -> Result<String, Status> {
        if let Some(v) = request.metadata().get(SECRET_HEADER) {
            let secret = v.to_str().unwrap_or_default();
            let digest: [u8; 32] = Sha256::digest(secret.as_bytes()).into();
            return match self.lock().get(&digest) {
                Some(id) => Ok(format!("worker {id}")),
                None => Err(Status::permission_denied(format!(
                    "the {SECRET_HEADER} header matches no attached worker's report secret (the one Attach gave; it ends when the worker detaches)"))),
            };
        }
        let loopback = request.remote_addr().is_some_and(|a| a.ip().is_loopback() || a.ip().to_canonical().is_loopback());
        Ok(match (self.token, loopback) {
            (true, _) => TOKEN_HOLDERS.to_string(),
            (false, true) => LOOPBACK.to_string(),
            // Without a token control listens on loopback only (main.rs); kept apart all the same.
            (false, false) => request.remote_addr().map(|a| format!("the clients at {}", a.ip())).unwrap_or_else(|| LOOPBACK.to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(addr: &str, secret: Option<&str>) -> Request<()> {
        let mut r = Request::new(());
        r.extensions_mut().insert(tonic::transport::server::TcpConnectInfo { local_addr: None, remote_addr: Some(addr.parse().unwrap()) });
        if let Some(s) = secret {
            r.metadata_mut().insert(SECRET_HEADER, s.parse().unwrap());
        }
        r
    }

    #[test]
    fn every_loopback_address_is_one_client_and_a_worker_secret_is_its_own() {
        let c = Clients::new(false);
        c.attached("s1", "rust-1");
        let keys: Vec<String> = ["127.0.0.1:5000", "127.0.0.2:5000", "127.0.0.5:1", "[::1]:9"].iter().map(|a| c.key(&from(a, None)).unwrap()).collect();
        assert!(keys.iter().all(|k| k == LOOPBACK), "{keys:?}");
        assert_eq!(c.key(&from("127.0.0.3:1", Some("s1"))).unwrap(), "worker rust-1");
        let wrong = c.key(&from("127.0.0.1:1", Some("s2"))).unwrap_err();
        assert_eq!(wrong.code(), tonic::Code::PermissionDenied);
        c.detached("rust-1");
        assert!(c.key(&from("127.0.0.1:1", Some("s1"))).is_err(), "a detached worker's secret names nobody");
        let with_token = Clients::new(true);
        assert_eq!(with_token.key(&from("10.0.0.7:1", None)).unwrap(), TOKEN_HOLDERS);
        assert_eq!(with_token.key(&from("10.0.0.8:1", None)).unwrap(), TOKEN_HOLDERS, "behind a proxy or not, one allowance");
    }
}

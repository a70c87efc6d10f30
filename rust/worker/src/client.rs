//! The worker's gRPC client for control. When control requires a token (docs/operating.md, "the token"),
//! every call carries it as `authorization: Bearer TOKEN`; once attached, every blob call carries
//! the attachment's report secret as `codecbench-report-secret` (proto/README.md), which gives the
//! worker an upload allowance of its own instead of the anonymous clients' shared one.
use anyhow::{Context, Result};
use codecbench_proto::v1::worker_service_client::WorkerServiceClient;
use std::sync::{Arc, Mutex};
use tonic::codec::CompressionEncoding;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::{interceptor::InterceptedService, Interceptor};
use tonic::transport::Channel;
use tonic::{GrpcMethod, Request, Status};

/// The metadata header a blob call names its worker in (control's clients.rs).
pub const SECRET_HEADER: &str = "codecbench-report-secret";

/// The WorkerService calls that carry the secret: the ones control counts uploads for.
const BLOB_METHODS: &[&str] = &["GetBlob", "PutBlob", "UploadBlob"];

/// Adds the token, if any, to each call, and the attachment's report secret, once known, to each
/// blob call.
#[derive(Clone, Default)]
pub struct Token(Option<MetadataValue<Ascii>>, Secret);

/// The report secret of the current attachment, shared by every clone of its client (the task
/// runner's, the compressed legs'). Each attachment makes a client of its own, so a secret never
/// outlives the attachment that gave it.
#[derive(Clone, Default)]
pub struct Secret(Arc<Mutex<Option<MetadataValue<Ascii>>>>);

impl Secret {
    /// Control's secret is hex; anything a header cannot carry is kept out (the calls go anonymous).
    pub fn set(&self, secret: &str) {
        let value = if secret.is_empty() { None } else { secret.parse().ok() };
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = value;
    }

    fn get(&self) -> Option<MetadataValue<Ascii>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Token {
    /// The token from `file` if given, else from `CODECBENCH_TOKEN`; none when neither is set.
    pub fn load(file: Option<&std::path::Path>) -> Result<Self> {
        let token = match file {
            Some(f) => std::fs::read_to_string(f).with_context(|| format!("reading the token file {}", f.display()))?,
            None => std::env::var("CODECBENCH_TOKEN").unwrap_or_default(),
        };
        Self::new(token.trim())
    }

    pub fn new(token: &str) -> Result<Self> {
        if token.is_empty() {
            return Ok(Token::default());
        }
        let value = format!("Bearer {token}").parse().context("the token must be printable ASCII")?;
        Ok(Token(Some(value), Secret::default()))
    }
}

impl Interceptor for Token {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(value) = &self.0 {
            request.metadata_mut().insert("authorization", value.clone());
        }
        // The generated client names each call's method in an extension.
        let blob = request.extensions().get::<GrpcMethod>().is_some_and(|m| BLOB_METHODS.contains(&m.method()));
        if let Some(secret) = self.1.get().filter(|_| blob) {
            request.metadata_mut().insert(SECRET_HEADER, secret);
        }
        Ok(request)
    }
}

pub type Client = WorkerServiceClient<InterceptedService<Channel, Token>>;

/// A client for one attachment, and the secret its blob calls will carry once `attached` gives it.
pub fn new(channel: Channel, token: Token) -> (Client, Secret) {
    let secret = Secret::default();
    let token = Token(token.0, secret.clone());
    (WorkerServiceClient::with_interceptor(channel, token), secret)
}

/// The compressions this worker times transfer legs with besides identity (Scenario.compressions):
/// tonic's gzip and zstd.
pub const COMPRESSIONS: &[&str] = &["gzip", "zstd"];

/// No compression: "identity", or "" as Measurement.compression writes it.
pub fn is_identity(compression: &str) -> bool {
    matches!(compression, "" | "identity")
}

/// A client on the same channel whose calls send their messages in `compression` and advertise it
/// for the answers (grpc-encoding, grpc-accept-encoding); identity (or "") is the plain client,
/// which advertises nothing, so control answers it uncompressed.
pub fn compressed(client: &Client, compression: &str) -> Result<Client> {
    if is_identity(compression) {
        return Ok(client.clone());
    }
    let encoding = match compression {
        "gzip" => CompressionEncoding::Gzip,
        "zstd" => CompressionEncoding::Zstd,
        other => anyhow::bail!("the Rust worker offers no compression {other:?} (it offers identity, {})", COMPRESSIONS.join(", ")),
    };
    Ok(client.clone().send_compressed(encoding).accept_compressed(encoding))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_goes_into_the_authorization_header_and_no_token_adds_nothing() {
        let mut with = Token::new("0123456789abcdef").unwrap();
        let req = with.call(Request::new(())).unwrap();
        assert_eq!(req.metadata().get("authorization").unwrap().to_str().unwrap(), "Bearer 0123456789abcdef");
        let req = Token::new("").unwrap().call(Request::new(())).unwrap();
        assert!(req.metadata().get("authorization").is_none());
        assert!(Token::new("bad\ntoken").is_err());
    }

    #[tokio::test]
    async fn a_compression_it_does_not_offer_is_an_error_naming_what_it_offers() {
        let channel = Channel::from_static("http://127.0.0.1:9").connect_lazy();
        let (client, _) = new(channel, Token::default());
        for c in ["", "identity", "gzip", "zstd"] {
            assert!(compressed(&client, c).is_ok(), "{c}");
        }
        let e = compressed(&client, "brotli").err().unwrap().to_string();
        assert_eq!(e, "the Rust worker offers no compression \"brotli\" (it offers identity, gzip, zstd)");
    }
}

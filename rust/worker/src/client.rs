//! The worker's gRPC client for control. When control requires a token (docs/DESIGN.md, "Access"),
//! every call carries it as `authorization: Bearer TOKEN`.
use anyhow::{Context, Result};
use codecbench_proto::v1::worker_service_client::WorkerServiceClient;
use tonic::codec::CompressionEncoding;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::{interceptor::InterceptedService, Interceptor};
use tonic::transport::Channel;
use tonic::{Request, Status};

/// Adds the token, if any, to each call.
#[derive(Clone, Default)]
pub struct Token(Option<MetadataValue<Ascii>>);

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
            return Ok(Token(None));
        }
        let value = format!("Bearer {token}").parse().context("the token must be printable ASCII")?;
        Ok(Token(Some(value)))
    }
}

impl Interceptor for Token {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(value) = &self.0 {
            request.metadata_mut().insert("authorization", value.clone());
        }
        Ok(request)
    }
}

pub type Client = WorkerServiceClient<InterceptedService<Channel, Token>>;

pub fn new(channel: Channel, token: Token) -> Client {
    WorkerServiceClient::with_interceptor(channel, token)
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
        let client = new(channel, Token::default());
        for c in ["", "identity", "gzip", "zstd"] {
            assert!(compressed(&client, c).is_ok(), "{c}");
        }
        let e = compressed(&client, "brotli").err().unwrap().to_string();
        assert_eq!(e, "the Rust worker offers no compression \"brotli\" (it offers identity, gzip, zstd)");
    }
}

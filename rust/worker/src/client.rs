//! The worker's gRPC client for control. When control requires a token (docs/DESIGN.md, "Access"),
//! every call carries it as `authorization: Bearer TOKEN`.
use anyhow::{Context, Result};
use codecbench_proto::v1::worker_service_client::WorkerServiceClient;
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
}

//! Control's domain error: what went wrong, in kinds a client can act on, free of any transport.
//! grpc_status.rs turns it into a gRPC status (one kind, one code) at the service boundary.

/// An error of control's domain; the message is what the client reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// No such run, blob or upload.
    #[error("{0}")]
    NotFound(String),
    /// The caller may not do this (a report without its worker's secret, or for another's task).
    #[error("{0}")]
    PermissionDenied(String),
    /// Not now: the state this needs is gone (a task no longer running, a records blob missing).
    #[error("{0}")]
    FailedPrecondition(String),
    /// A cap or quota is reached (uploads, the blob store, a follower's queue).
    #[error("{0}")]
    ResourceExhausted(String),
    /// Try again: control could not store it this time.
    #[error("{0}")]
    Unavailable(String),
    /// The request itself is wrong, whenever it is sent.
    #[error("{0}")]
    InvalidArgument(String),
    /// Control failed (I/O, SQLite).
    #[error("{0}")]
    Internal(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Storage failures (store.rs answers anyhow) are control's own: INTERNAL, with their causes.
impl From<anyhow::Error> for Error {
    fn from(e: anyhow::Error) -> Self {
        Error::Internal(format!("{e:#}"))
    }
}

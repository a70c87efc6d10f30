//! The one place a domain error (error.rs) becomes a gRPC status. Only the transport modules
//! (main.rs, worker_service.rs, harness_service.rs, clients.rs, access.rs and this one: TRANSPORT
//! in the tests) may use tonic; a test at the end keeps every other module free of it.
use crate::error::Error;
use tonic::Status;

impl From<Error> for Status {
    fn from(e: Error) -> Status {
        match e {
            Error::NotFound(m) => Status::not_found(m),
            Error::PermissionDenied(m) => Status::permission_denied(m),
            Error::FailedPrecondition(m) => Status::failed_precondition(m),
            Error::ResourceExhausted(m) => Status::resource_exhausted(m),
            Error::Unavailable(m) => Status::unavailable(m),
            Error::InvalidArgument(m) => Status::invalid_argument(m),
            Error::Internal(m) => Status::internal(m),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;

    /// The modules that speak gRPC or HTTP, relative to src/: the server (main.rs), the two
    /// services, the blob callers' keys (clients.rs reads request metadata), the access guard
    /// (access.rs answers 401 as a gRPC status) and this mapping. Every other module is domain.
    const TRANSPORT: &[&str] = &["main.rs", "worker_service.rs", "harness_service.rs", "clients.rs", "access.rs", "grpc_status.rs"];

    #[test]
    fn each_kind_is_its_own_code_and_the_message_is_kept() {
        let cases = [
            (Error::NotFound("a".into()), Code::NotFound),
            (Error::PermissionDenied("b".into()), Code::PermissionDenied),
            (Error::FailedPrecondition("c".into()), Code::FailedPrecondition),
            (Error::ResourceExhausted("d".into()), Code::ResourceExhausted),
            (Error::Unavailable("e".into()), Code::Unavailable),
            (Error::InvalidArgument("f".into()), Code::InvalidArgument),
            (Error::Internal("g".into()), Code::Internal),
        ];
        for (e, code) in cases {
            let message = e.to_string();
            let s = Status::from(e);
            assert_eq!((s.code(), s.message()), (code, message.as_str()));
        }
    }

    /// Every source file under src/ that is not a transport module, tests included, must not
    /// name tonic in its code (comments may): the domain answers domain errors and types.
    #[test]
    fn no_domain_module_uses_tonic() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![];
        let mut dirs = vec![src.clone()];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    files.push(p);
                }
            }
        }
        assert!(files.len() > 20, "found the sources: {files:?}");
        for t in TRANSPORT {
            assert!(files.contains(&src.join(t)), "{t} is a source file");
        }
        let mut offenders = vec![];
        for p in files {
            let rel = p.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
            if TRANSPORT.contains(&rel.as_str()) {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                let words = code.split(|c: char| !(c.is_alphanumeric() || c == '_'));
                if words.into_iter().any(|w| w == "tonic") {
                    offenders.push(format!("{rel}:{}: {}", n + 1, line.trim()));
                }
            }
        }
        assert!(offenders.is_empty(), "domain modules use tonic (map to crate::error::Error instead): {offenders:#?}");
    }
}

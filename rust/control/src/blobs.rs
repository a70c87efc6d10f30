//! Content-addressed blob store on disk: a blob's id is the SHA-256 of its bytes. Uploads arrive in
//! chunks of at most 1 MiB and are appended to a temporary file, so memory stays bounded even for
//! payloads of hundreds of MiB.
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub const MAX_CHUNK: usize = 1 << 20;
/// Unfinished uploads at once: each holds an open file, and abandoned ones (a client that never
/// sends `finish`) must not use up control's file descriptors.
pub const MAX_OPEN_UPLOADS: usize = 64;
/// An upload that receives no chunk for this long is abandoned: its file is removed.
pub const UPLOAD_IDLE: Duration = Duration::from_secs(60);

pub struct BlobStore {
    dir: PathBuf,
    uploads: Mutex<HashMap<String, Upload>>,
    idle: Duration,
}

struct Upload {
    file: File,
    path: PathBuf,
    len: u64,
    hash: Sha256,
    last: Instant,
}

#[derive(Debug, PartialEq, Eq)]
pub enum BlobError {
    NotFound(String),
    BadRequest(String),
    Busy(String),
    Io(String),
}

impl std::fmt::Display for BlobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BlobError::NotFound(m) | BlobError::BadRequest(m) | BlobError::Busy(m) | BlobError::Io(m) => f.write_str(m),
        }
    }
}

fn io(e: std::io::Error) -> BlobError {
    BlobError::Io(format!("blob store: {e}"))
}

fn valid_id(id: &str) -> bool {
    id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

impl BlobStore {
    pub fn open(dir: &Path) -> std::io::Result<Self> {
        fs::create_dir_all(dir.join("uploads"))?;
        // Uploads interrupted by a previous stop can never be finished.
        for e in fs::read_dir(dir.join("uploads"))?.flatten() {
            let _ = fs::remove_file(e.path());
        }
        Ok(BlobStore { dir: dir.to_path_buf(), uploads: Mutex::new(HashMap::new()), idle: UPLOAD_IDLE })
    }

    /// Removes uploads idle for longer than the idle limit; returns how many. Control calls it
    /// every second, and every new upload does too.
    pub fn expire_idle(&self) -> usize {
        let mut uploads = self.uploads.lock().unwrap_or_else(|p| p.into_inner());
        Self::expire_in(&mut uploads, self.idle)
    }

    fn expire_in(uploads: &mut HashMap<String, Upload>, idle: Duration) -> usize {
        let stale: Vec<String> = uploads.iter().filter(|(_, u)| u.last.elapsed() > idle).map(|(k, _)| k.clone()).collect();
        for id in &stale {
            if let Some(up) = uploads.remove(id) {
                let _ = fs::remove_file(&up.path);
                tracing::warn!(upload = id, bytes = up.len, "unfinished upload expired after {} s without a chunk", idle.as_secs());
            }
        }
        stale.len()
    }

    pub fn path(&self, id: &str) -> Result<PathBuf, BlobError> {
        if !valid_id(id) {
            return Err(BlobError::BadRequest(format!("{id:?} is not a blob id (64 lowercase hex digits of SHA-256)")));
        }
        let p = self.dir.join(&id[..2]).join(id);
        if p.exists() { Ok(p) } else { Err(BlobError::NotFound(format!("no blob {id}"))) }
    }

    /// Stores bytes (e.g. a generated canonical dataset) and returns their id.
    pub fn put_bytes(&self, data: &[u8]) -> Result<String, BlobError> {
        let id = hex::encode(Sha256::digest(data));
        let dir = self.dir.join(&id[..2]);
        let target = dir.join(&id);
        if !target.exists() {
            fs::create_dir_all(&dir).map_err(io)?;
            let tmp = self.dir.join("uploads").join(format!("put-{id}"));
            fs::write(&tmp, data).map_err(io)?;
            fs::rename(&tmp, &target).map_err(io)?;
        }
        Ok(id)
    }

    /// Appends one chunk to an upload; on `finish`, stores the blob and returns (id, size).
    pub fn put_chunk(&self, upload_id: &str, offset: u64, data: &[u8], finish: bool) -> Result<Option<(String, u64)>, BlobError> {
        if upload_id.is_empty() || upload_id.len() > 128 || !upload_id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
            return Err(BlobError::BadRequest(format!("upload_id {upload_id:?} must be 1 to 128 characters of [A-Za-z0-9_-]")));
        }
        if data.len() > MAX_CHUNK {
            return Err(BlobError::BadRequest(format!("chunk of {} bytes is over the 1 MiB limit", data.len())));
        }
        let mut uploads = self.uploads.lock().unwrap_or_else(|p| p.into_inner());
        if !uploads.contains_key(upload_id) {
            if offset != 0 {
                return Err(BlobError::BadRequest(format!("upload {upload_id} is unknown (never started, finished, or expired after {} s idle); it must start at offset 0, not {offset}", self.idle.as_secs())));
            }
            Self::expire_in(&mut uploads, self.idle);
            if uploads.len() >= MAX_OPEN_UPLOADS {
                return Err(BlobError::Busy(format!("{MAX_OPEN_UPLOADS} uploads are unfinished; finish one first (an upload idle for {} s is dropped)", self.idle.as_secs())));
            }
            let path = self.dir.join("uploads").join(upload_id);
            let file = OpenOptions::new().create(true).truncate(true).write(true).open(&path).map_err(io)?;
            uploads.insert(upload_id.to_string(), Upload { file, path, len: 0, hash: Sha256::new(), last: Instant::now() });
        }
        let up = uploads.get_mut(upload_id).expect("inserted above");
        up.last = Instant::now();
        if offset != up.len {
            return Err(BlobError::BadRequest(format!("upload {upload_id} has {} bytes; a chunk at offset {offset} does not follow", up.len)));
        }
        up.file.write_all(data).map_err(io)?;
        up.hash.update(data);
        up.len += data.len() as u64;
        if !finish {
            return Ok(None);
        }
        let up = uploads.remove(upload_id).expect("present");
        drop(uploads);
        up.file.sync_data().map_err(io)?;
        let id = hex::encode(up.hash.finalize());
        let dir = self.dir.join(&id[..2]);
        fs::create_dir_all(&dir).map_err(io)?;
        fs::rename(&up.path, dir.join(&id)).map_err(io)?;
        Ok(Some((id, up.len)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_make_a_content_addressed_blob() {
        let dir = tempfile::tempdir().unwrap();
        let s = BlobStore::open(dir.path()).unwrap();
        assert_eq!(s.put_chunk("u1", 0, b"hello ", false).unwrap(), None);
        let (id, size) = s.put_chunk("u1", 6, b"world", true).unwrap().unwrap();
        assert_eq!(size, 11);
        assert_eq!(id, s.put_bytes(b"hello world").unwrap());
        assert_eq!(fs::read(s.path(&id).unwrap()).unwrap(), b"hello world");
    }

    #[test]
    fn bad_uploads_are_refused_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let s = BlobStore::open(dir.path()).unwrap();
        s.put_chunk("u", 0, b"abc", false).unwrap();
        assert!(matches!(s.put_chunk("u", 1, b"x", false), Err(BlobError::BadRequest(m)) if m.contains("does not follow")));
        assert!(matches!(s.put_chunk("v", 5, b"x", false), Err(BlobError::BadRequest(_))));
        assert!(matches!(s.put_chunk("../x", 0, b"x", true), Err(BlobError::BadRequest(_))));
        assert!(s.put_chunk("w", 0, &vec![0u8; MAX_CHUNK + 1], true).is_err());
        assert!(matches!(s.path("zz"), Err(BlobError::BadRequest(_))));
        assert!(matches!(s.path(&"0".repeat(64)), Err(BlobError::NotFound(_))));
    }

    #[test]
    fn unfinished_uploads_are_capped_and_expire() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = BlobStore::open(dir.path()).unwrap();
        s.idle = Duration::from_millis(200);
        for i in 0..MAX_OPEN_UPLOADS {
            s.put_chunk(&format!("u{i}"), 0, b"x", false).unwrap();
        }
        let refused = s.put_chunk("one-more", 0, b"x", false).unwrap_err();
        assert!(matches!(&refused, BlobError::Busy(m) if m.contains("64 uploads are unfinished")), "{refused:?}");
        // A chunk keeps its upload alive; the others expire and their files go.
        std::thread::sleep(Duration::from_millis(120));
        s.put_chunk("u0", 1, b"y", false).unwrap();
        std::thread::sleep(Duration::from_millis(120));
        assert_eq!(s.expire_idle(), MAX_OPEN_UPLOADS - 1);
        assert_eq!(fs::read_dir(dir.path().join("uploads")).unwrap().count(), 1, "only u0's file is left");
        assert!(matches!(s.put_chunk("u1", 1, b"y", false), Err(BlobError::BadRequest(m)) if m.contains("expired")));
        let (_, size) = s.put_chunk("u0", 2, b"z", true).unwrap().unwrap();
        assert_eq!(size, 3);
        s.put_chunk("one-more", 0, b"x", true).unwrap();
    }
}

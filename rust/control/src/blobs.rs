//! Content-addressed blob store on disk: a blob's id is the SHA-256 of its bytes. The store has a
//! quota (stored blobs plus unfinished uploads), and `collect` removes the blobs no active run
//! needs. Uploads arrive in chunks of at most 1 MiB, appended to a temporary file so memory stays
//! bounded even for payloads of hundreds of MiB (uploads.rs); each payload's gzip and zstd sizes
//! are measured once, from the stored file (compressed.rs).
use crate::error::Error;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

mod compressed;
mod uploads;
pub use compressed::{compressed_sizes, Compressed};

pub const MAX_CHUNK: usize = 1 << 20;
/// Unfinished uploads at once, a stream counted from the moment it opens: each holds a file once
/// its first chunk arrives, and abandoned ones (a client that never sends `finish`) must not use
/// up control's file descriptors.
pub const MAX_OPEN_UPLOADS: usize = 64;
/// Unfinished uploads one client (an attached worker, or the clients without a worker secret on
/// one path: clients.rs) may hold, so that no single client can take every slot of MAX_OPEN_UPLOADS.
pub const MAX_UPLOADS_PER_CLIENT: usize = 16;
/// A PutBlob upload that receives no chunk for this long is abandoned: its file is removed.
pub const UPLOAD_IDLE: Duration = Duration::from_secs(60);
/// An UploadBlob stream that sends no chunk for this long (the first included) is closed: a 1 MiB
/// chunk then needs at least 0.3 Mbit/s, slower than the slowest network profile (3g's 0.77 up).
pub const STREAM_IDLE: Duration = Duration::from_secs(30);
/// A blob written or stored again this recently is never collected: between a worker's upload
/// (or control's canonical write) and the report or run that names it, no run refers to it yet.
pub const COLLECT_GRACE: Duration = Duration::from_secs(600);

pub struct BlobStore {
    dir: PathBuf,
    uploads: Mutex<HashMap<String, Upload>>,
    /// Bytes of stored blobs (unfinished uploads are counted from `uploads`).
    stored: Mutex<u64>,
    quota: u64,
    idle: Duration,
    stream_idle: Duration,
    grace: Duration,
    /// Compressed sizes measured so far, by blob id (a blob's bytes never change).
    compressed: Mutex<HashMap<String, Compressed>>,
    /// Uploads synced to disk (new content only), for tests.
    synced: std::sync::atomic::AtomicU64,
}

struct Upload {
    /// Created with the first chunk: a stream that opened and sent nothing holds no descriptor.
    file: Option<File>,
    path: PathBuf,
    len: u64,
    hash: Sha256,
    last: Instant,
    /// Who started it (clients.rs: a worker, or the clients without a worker secret on one path):
    /// only they may add to it.
    client: String,
}

/// What `collect` removed and kept.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Collected {
    pub removed: u64,
    pub removed_bytes: u64,
    pub kept: u64,
    pub kept_bytes: u64,
}

fn io(e: std::io::Error) -> Error {
    Error::Internal(format!("blob store: {e}"))
}

fn valid_id(id: &str) -> bool {
    id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// Every stored blob: (id, path, size, last written or stored again).
fn blob_files(dir: &Path) -> std::io::Result<Vec<(String, PathBuf, u64, SystemTime)>> {
    let mut out = vec![];
    for shard in fs::read_dir(dir)?.flatten() {
        let name = shard.file_name();
        if name == "uploads" || !shard.path().is_dir() {
            continue;
        }
        for e in fs::read_dir(shard.path())?.flatten() {
            let id = e.file_name().to_string_lossy().into_owned();
            if !valid_id(&id) {
                continue;
            }
            let meta = e.metadata()?;
            out.push((id, e.path(), meta.len(), meta.modified().unwrap_or(SystemTime::UNIX_EPOCH)));
        }
    }
    Ok(out)
}

/// Marks a blob as just stored (for `collect`'s grace period) when the same bytes arrive again.
fn touch(path: &Path) -> Result<(), Error> {
    File::options().write(true).open(path).and_then(|f| f.set_modified(SystemTime::now())).map_err(io)
}

/// A writer that hashes what passes and refuses to go past `room` bytes.
struct Hashing {
    out: std::io::BufWriter<File>,
    hash: Sha256,
    len: u64,
    room: u64,
}

impl Write for Hashing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.len + buf.len() as u64 > self.room {
            self.len += buf.len() as u64;
            return Err(std::io::Error::other("past the blob store's quota"));
        }
        let n = self.out.write(buf)?;
        self.hash.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// A size a person reads: "10 bytes", "1.5 KiB", "3.2 MiB" (a small upload is not "0.0 MiB").
fn mib(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} bytes"),
        1024..1_048_576 => format!("{:.1} KiB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20)),
    }
}

impl BlobStore {
    /// Opens (or creates) the store in `dir`; `quota` bounds stored blobs plus unfinished uploads.
    pub fn open(dir: &Path, quota: u64) -> std::io::Result<Self> {
        fs::create_dir_all(dir.join("uploads"))?;
        // Uploads interrupted by a previous stop can never be finished.
        for e in fs::read_dir(dir.join("uploads"))?.flatten() {
            let _ = fs::remove_file(e.path());
        }
        let stored = blob_files(dir)?.iter().map(|b| b.2).sum();
        Ok(BlobStore {
            dir: dir.to_path_buf(), uploads: Mutex::new(HashMap::new()), stored: Mutex::new(stored), quota,
            idle: UPLOAD_IDLE, stream_idle: STREAM_IDLE, grace: COLLECT_GRACE, compressed: Mutex::new(HashMap::new()), synced: Default::default(),
        })
    }

    /// Unfinished uploads expire after `idle` without a chunk, streams after at most that long
    /// (defaults UPLOAD_IDLE and STREAM_IDLE; tests shorten them).
    pub fn with_idle(mut self, idle: Duration) -> Self {
        self.idle = idle;
        self.stream_idle = STREAM_IDLE.min(idle);
        self
    }

    /// How long an UploadBlob stream may wait for its next chunk, the first included.
    pub fn stream_idle(&self) -> Duration {
        self.stream_idle
    }

    /// `collect` keeps blobs stored within `grace` (default COLLECT_GRACE).
    pub fn with_grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Refuses `more` bytes that would take the store past its quota.
    fn check_quota(&self, uploads: &HashMap<String, Upload>, more: u64) -> Result<(), Error> {
        let stored = *self.stored.lock().unwrap_or_else(|p| p.into_inner());
        let pending: u64 = uploads.values().map(|u| u.len).sum();
        if stored + pending + more > self.quota {
            return Err(Error::ResourceExhausted(format!(
                "the blob store is full: {} stored and {} in unfinished uploads, {} more would pass its quota of {} \
(control's --blob-quota-mib); `codecbench gc` removes the blobs no active run needs",
                mib(stored), mib(pending), mib(more), mib(self.quota))));
        }
        Ok(())
    }

    /// The blob's compressed sizes, measured on first ask (seconds for a 100 MiB payload: callers
    /// ask outside any lock that a timed task waits on) and remembered.
    pub fn compressed(&self, id: &str) -> Result<Compressed, Error> {
        if let Some(c) = self.known_compressed(id) {
            return Ok(c);
        }
        let c = compressed_sizes(&self.path(id)?).map_err(io)?;
        self.compressed.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string(), c);
        Ok(c)
    }

    /// The blob's compressed sizes if they were measured already.
    pub fn known_compressed(&self, id: &str) -> Option<Compressed> {
        self.compressed.lock().unwrap_or_else(|p| p.into_inner()).get(id).copied()
    }

    /// Bytes the stored blobs take.
    pub fn stored_bytes(&self) -> u64 {
        *self.stored.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Removes every stored blob not in `keep` and not written within the grace period; with
    /// `dry_run`, only counts them. Unfinished uploads are not touched (they expire on their own).
    pub fn collect(&self, keep: &HashSet<String>, dry_run: bool) -> Result<Collected, Error> {
        // Holding the uploads lock: no upload finishes (renames into place) meanwhile.
        let _uploads = self.uploads.lock().unwrap_or_else(|p| p.into_inner());
        let now = SystemTime::now();
        let mut c = Collected::default();
        for (id, path, size, modified) in blob_files(&self.dir).map_err(io)? {
            let recent = now.duration_since(modified).map(|age| age < self.grace).unwrap_or(true);
            if keep.contains(&id) || recent {
                c.kept += 1;
                c.kept_bytes += size;
                continue;
            }
            if !dry_run {
                fs::remove_file(&path).map_err(io)?;
                self.compressed.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
                *self.stored.lock().unwrap_or_else(|p| p.into_inner()) -= size;
            }
            c.removed += 1;
            c.removed_bytes += size;
        }
        Ok(c)
    }

    pub fn path(&self, id: &str) -> Result<PathBuf, Error> {
        if !valid_id(id) {
            return Err(Error::InvalidArgument(format!("{id:?} is not a blob id (64 lowercase hex digits of SHA-256)")));
        }
        let p = self.dir.join(&id[..2]).join(id);
        if p.exists() { Ok(p) } else { Err(Error::NotFound(format!("no blob {id}"))) }
    }

    /// Stores bytes held in memory and returns their id (tests; control streams with `put_with`).
    #[cfg(test)]
    pub fn put_bytes(&self, data: &[u8]) -> Result<String, Error> {
        let id = hex::encode(Sha256::digest(data));
        let dir = self.dir.join(&id[..2]);
        let target = dir.join(&id);
        let uploads = self.uploads.lock().unwrap_or_else(|p| p.into_inner());
        if target.exists() {
            touch(&target)?;
        } else {
            self.check_quota(&uploads, data.len() as u64)?;
            fs::create_dir_all(&dir).map_err(io)?;
            let tmp = self.dir.join("uploads").join(format!("put-{id}"));
            fs::write(&tmp, data).map_err(io)?;
            fs::rename(&tmp, &target).map_err(io)?;
            *self.stored.lock().unwrap_or_else(|p| p.into_inner()) += data.len() as u64;
        }
        Ok(id)
    }

    /// Stores what `write` writes (e.g. a dataset generated record by record) without holding it
    /// in memory: through a hash into a temporary file, refused once it would pass the quota.
    pub fn put_with(&self, write: impl FnOnce(&mut dyn Write) -> std::io::Result<u64>) -> Result<(String, u64), Error> {
        let room = {
            let uploads = self.uploads.lock().unwrap_or_else(|p| p.into_inner());
            let pending: u64 = uploads.values().map(|u| u.len).sum();
            self.quota.saturating_sub(self.stored_bytes() + pending)
        };
        let tmp = self.dir.join("uploads").join(format!("put-{}", hex::encode(rand::random::<[u8; 8]>())));
        let file = File::create(&tmp).map_err(io)?;
        let mut sink = Hashing { out: std::io::BufWriter::new(file), hash: Sha256::new(), len: 0, room };
        let written = write(&mut sink).and_then(|_| sink.out.flush());
        let Hashing { out, hash, len, .. } = sink;
        drop(out);
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(if len > room {
                Error::ResourceExhausted(format!("the blob store is full: {} more would pass its quota of {} (control's --blob-quota-mib); \
`codecbench gc` removes the blobs no active run needs", mib(len), mib(self.quota)))
            } else {
                Error::Internal(format!("blob store: {e}"))
            });
        }
        let id = hex::encode(hash.finalize());
        let dir = self.dir.join(&id[..2]);
        let target = dir.join(&id);
        let _uploads = self.uploads.lock().unwrap_or_else(|p| p.into_inner());
        if target.exists() {
            let _ = fs::remove_file(&tmp);
            touch(&target)?;
        } else {
            fs::create_dir_all(&dir).map_err(io)?;
            fs::rename(&tmp, &target).map_err(io)?;
            *self.stored.lock().unwrap_or_else(|p| p.into_inner()) += len;
        }
        Ok((id, len))
    }
}

#[cfg(test)]
#[path = "blobs_tests.rs"]
mod tests;

//! Uploads: PutBlob's chunks and UploadBlob's streams, appended to a temporary file under the
//! caps (MAX_OPEN_UPLOADS, MAX_UPLOADS_PER_CLIENT, the quota) and stored by hash on `finish`;
//! an upload idle past its limit is dropped. A child of blobs.rs.
use super::*;

impl BlobStore {
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

    /// Drops an unfinished upload and its file (a stream that failed or ended early); nothing if it
    /// finished or never started.
    pub fn abandon(&self, upload_id: &str) {
        if let Some(up) = self.uploads.lock().unwrap_or_else(|p| p.into_inner()).remove(upload_id) {
            let _ = fs::remove_file(&up.path);
        }
    }

    /// Opens an upload for `client` (clients.rs) before any chunk arrives, so that an UploadBlob
    /// stream counts against the caps from the moment it opens; refused past either cap.
    pub fn begin(&self, client: &str, upload_id: &str) -> Result<(), Error> {
        valid_upload_id(upload_id)?;
        let mut uploads = self.uploads.lock().unwrap_or_else(|p| p.into_inner());
        if uploads.contains_key(upload_id) {
            return Err(Error::InvalidArgument(format!("upload {upload_id} is open already")));
        }
        self.begin_in(&mut uploads, client, upload_id)
    }

    fn begin_in(&self, uploads: &mut HashMap<String, Upload>, client: &str, upload_id: &str) -> Result<(), Error> {
        Self::expire_in(uploads, self.idle);
        if uploads.len() >= MAX_OPEN_UPLOADS {
            return Err(Error::ResourceExhausted(format!("{MAX_OPEN_UPLOADS} uploads are unfinished, the most control holds at once; finish one first \
(a PutBlob upload idle for {} s is dropped, an UploadBlob stream after {} s without a chunk)", self.idle.as_secs(), self.stream_idle.as_secs())));
        }
        if uploads.values().filter(|u| u.client == client).count() >= MAX_UPLOADS_PER_CLIENT {
            return Err(Error::ResourceExhausted(format!("{MAX_UPLOADS_PER_CLIENT} unfinished uploads are {client}'s, the most one client may hold; \
finish one first (a PutBlob upload idle for {} s is dropped, an UploadBlob stream after {} s without a chunk)", self.idle.as_secs(), self.stream_idle.as_secs())));
        }
        let path = self.dir.join("uploads").join(upload_id);
        uploads.insert(upload_id.to_string(), Upload { file: None, path, len: 0, hash: Sha256::new(), last: Instant::now(), client: client.to_string() });
        Ok(())
    }

    /// Appends one chunk to an upload `client` (clients.rs) started, starting it at offset 0 (PutBlob);
    /// on `finish`, stores the blob and returns (id, size).
    pub fn put_chunk(&self, client: &str, upload_id: &str, offset: u64, data: &[u8], finish: bool) -> Result<Option<(String, u64)>, Error> {
        self.chunk(client, upload_id, offset, data, finish, true)
    }

    /// Appends one chunk to an upload opened with `begin` (UploadBlob); one that was dropped (its
    /// stream ended or expired) is not started again.
    pub fn append(&self, client: &str, upload_id: &str, offset: u64, data: &[u8], finish: bool) -> Result<Option<(String, u64)>, Error> {
        self.chunk(client, upload_id, offset, data, finish, false)
    }

    fn chunk(&self, client: &str, upload_id: &str, offset: u64, data: &[u8], finish: bool, start: bool) -> Result<Option<(String, u64)>, Error> {
        valid_upload_id(upload_id)?;
        if data.len() > MAX_CHUNK {
            return Err(Error::InvalidArgument(format!("chunk of {} bytes is over the 1 MiB limit", data.len())));
        }
        let mut uploads = self.uploads.lock().unwrap_or_else(|p| p.into_inner());
        if !uploads.contains_key(upload_id) {
            if !start || offset != 0 {
                return Err(Error::InvalidArgument(format!("upload {upload_id} is unknown (never started, finished, or expired after {} s idle); it must start at offset 0, not {offset}", self.idle.as_secs())));
            }
            self.begin_in(&mut uploads, client, upload_id)?;
        }
        if uploads[upload_id].client != client {
            return Err(Error::InvalidArgument(format!("upload {upload_id} was started by another client")));
        }
        if let Err(full) = self.check_quota(&uploads, data.len() as u64) {
            // A finishing chunk that completes bytes stored already adds nothing: it may pass.
            let again = finish && {
                let mut h = uploads[upload_id].hash.clone();
                h.update(data);
                let id = hex::encode(h.finalize());
                self.dir.join(&id[..2]).join(&id).exists()
            };
            if !again {
                return Err(full);
            }
        }
        let up = uploads.get_mut(upload_id).expect("inserted above");
        up.last = Instant::now();
        if offset != up.len {
            return Err(Error::InvalidArgument(format!("upload {upload_id} has {} bytes; a chunk at offset {offset} does not follow", up.len)));
        }
        if up.file.is_none() {
            up.file = Some(OpenOptions::new().create(true).truncate(true).write(true).open(&up.path).map_err(io)?);
        }
        up.file.as_mut().expect("opened above").write_all(data).map_err(io)?;
        up.hash.update(data);
        up.len += data.len() as u64;
        if !finish {
            return Ok(None);
        }
        // The lock is held to the end: `collect` must not see the blob between rename and touch.
        let up = uploads.remove(upload_id).expect("present");
        let id = hex::encode(up.hash.finalize());
        let dir = self.dir.join(&id[..2]);
        let target = dir.join(&id);
        if target.exists() {
            // The same bytes are stored (and synced) already: keep those, mark them fresh. No
            // sync of the copy that is dropped: a transfer leg's rounds upload the same bytes
            // again and again, and syncing each copy timed the disk, not the transfer.
            let _ = fs::remove_file(&up.path);
            touch(&target)?;
        } else {
            up.file.as_ref().expect("written above").sync_data().map_err(io)?;
            self.synced.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            fs::create_dir_all(&dir).map_err(io)?;
            fs::rename(&up.path, &target).map_err(io)?;
            *self.stored.lock().unwrap_or_else(|p| p.into_inner()) += up.len;
        }
        drop(uploads);
        Ok(Some((id, up.len)))
    }

    /// How many uploads are unfinished (streams that sent nothing yet included).
    #[cfg(test)]
    pub fn open_uploads(&self) -> usize {
        self.uploads.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

fn valid_upload_id(upload_id: &str) -> Result<(), Error> {
    if upload_id.is_empty() || upload_id.len() > 128 || !upload_id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return Err(Error::InvalidArgument(format!("upload_id {upload_id:?} must be 1 to 128 characters of [A-Za-z0-9_-]")));
    }
    Ok(())
}

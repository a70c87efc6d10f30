//! The blob store's tests: uploads, caps, expiry, the quota, collection, compressed sizes.
use super::*;
use super::compressed::{GZIP_LEVEL, ZSTD_LEVEL};

#[test]
fn chunks_make_a_content_addressed_blob() {
    let dir = tempfile::tempdir().unwrap();
    let s = BlobStore::open(dir.path(), u64::MAX).unwrap();
    assert_eq!(s.put_chunk("10.0.0.1", "u1", 0, b"hello ", false).unwrap(), None);
    let (id, size) = s.put_chunk("10.0.0.1", "u1", 6, b"world", true).unwrap().unwrap();
    assert_eq!(size, 11);
    assert_eq!(id, s.put_bytes(b"hello world").unwrap());
    assert_eq!(fs::read(s.path(&id).unwrap()).unwrap(), b"hello world");
}

#[test]
fn an_upload_of_stored_bytes_is_not_synced_again() {
    let dir = tempfile::tempdir().unwrap();
    let s = BlobStore::open(dir.path(), u64::MAX).unwrap();
    let upload = |id: &str, bytes: &[u8]| s.put_chunk("10.0.0.1", id, 0, bytes, true).unwrap().unwrap();
    let first = upload("u1", b"payload");
    assert_eq!(s.synced.load(std::sync::atomic::Ordering::Relaxed), 1);
    // A transfer leg uploads the same bytes round after round: one blob, no further sync.
    assert_eq!(upload("u2", b"payload"), first);
    assert_eq!(upload("u3", b"payload"), first);
    assert_eq!(s.synced.load(std::sync::atomic::Ordering::Relaxed), 1);
    assert!(!dir.path().join("uploads").join("u2").exists());
    upload("u4", b"other bytes");
    assert_eq!(s.synced.load(std::sync::atomic::Ordering::Relaxed), 2);
}

#[test]
fn bad_uploads_are_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let s = BlobStore::open(dir.path(), u64::MAX).unwrap();
    s.put_chunk("10.0.0.1", "u", 0, b"abc", false).unwrap();
    assert!(matches!(s.put_chunk("10.0.0.1", "u", 1, b"x", false), Err(Error::InvalidArgument(m)) if m.contains("does not follow")));
    assert!(matches!(s.put_chunk("10.0.0.1", "v", 5, b"x", false), Err(Error::InvalidArgument(_))));
    assert!(matches!(s.put_chunk("10.0.0.1", "../x", 0, b"x", true), Err(Error::InvalidArgument(_))));
    assert!(s.put_chunk("10.0.0.1", "w", 0, &vec![0u8; MAX_CHUNK + 1], true).is_err());
    assert!(matches!(s.path("zz"), Err(Error::InvalidArgument(_))));
    assert!(matches!(s.path(&"0".repeat(64)), Err(Error::NotFound(_))));
}

#[test]
fn unfinished_uploads_are_capped_and_expire() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = BlobStore::open(dir.path(), u64::MAX).unwrap();
    s.idle = Duration::from_millis(200);
    // From many clients: one client's own cap would bite first.
    let client = |i: usize| format!("10.0.0.{}", i / MAX_UPLOADS_PER_CLIENT);
    for i in 0..MAX_OPEN_UPLOADS {
        s.put_chunk(&client(i), &format!("u{i}"), 0, b"x", false).unwrap();
    }
    let refused = s.put_chunk("10.0.0.1", "one-more", 0, b"x", false).unwrap_err();
    assert!(matches!(&refused, Error::ResourceExhausted(m) if m.contains("64 uploads are unfinished")), "{refused:?}");
    // A chunk keeps its upload alive; the others expire and their files go.
    std::thread::sleep(Duration::from_millis(120));
    s.put_chunk(&client(0), "u0", 1, b"y", false).unwrap();
    std::thread::sleep(Duration::from_millis(120));
    assert_eq!(s.expire_idle(), MAX_OPEN_UPLOADS - 1);
    assert_eq!(fs::read_dir(dir.path().join("uploads")).unwrap().count(), 1, "only u0's file is left");
    assert!(matches!(s.put_chunk(&client(1), "u1", 1, b"y", false), Err(Error::InvalidArgument(m)) if m.contains("expired")));
    let (_, size) = s.put_chunk(&client(0), "u0", 2, b"z", true).unwrap().unwrap();
    assert_eq!(size, 3);
    s.put_chunk("10.0.0.1", "one-more", 0, b"x", true).unwrap();
}

#[test]
fn one_client_cannot_take_every_upload_slot_or_touch_anothers_upload() {
    let dir = tempfile::tempdir().unwrap();
    let s = BlobStore::open(dir.path(), u64::MAX).unwrap();
    for i in 0..MAX_UPLOADS_PER_CLIENT {
        s.put_chunk("10.0.0.1", &format!("u{i}"), 0, b"x", false).unwrap();
    }
    let refused = s.put_chunk("10.0.0.1", "one-more", 0, b"x", false).unwrap_err();
    assert!(matches!(&refused, Error::ResourceExhausted(m) if m.contains("16 unfinished uploads are 10.0.0.1's")), "{refused:?}");
    s.put_chunk("10.0.0.2", "theirs", 0, b"x", true).unwrap();
    let hijack = s.put_chunk("10.0.0.2", "u0", 1, b"y", true).unwrap_err();
    assert!(matches!(&hijack, Error::InvalidArgument(m) if m.contains("another client")), "{hijack:?}");
    s.put_chunk("10.0.0.1", "u0", 1, b"y", true).unwrap();
}

#[test]
fn a_stream_counts_from_the_moment_it_opens_and_holds_no_file_until_its_first_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let s = BlobStore::open(dir.path(), u64::MAX).unwrap();
    for i in 0..MAX_UPLOADS_PER_CLIENT {
        s.begin("worker rust-1", &format!("stream-{i}")).unwrap();
    }
    assert_eq!(s.open_uploads(), MAX_UPLOADS_PER_CLIENT);
    assert_eq!(fs::read_dir(dir.path().join("uploads")).unwrap().count(), 0, "no descriptor before a chunk");
    let refused = s.begin("worker rust-1", "stream-x").unwrap_err();
    assert!(matches!(&refused, Error::ResourceExhausted(m) if m.contains("16 unfinished uploads are worker rust-1's")), "{refused:?}");
    // Another client's allowance is its own; a PutBlob upload of the same client is refused too.
    s.begin("worker java-1", "stream-y").unwrap();
    assert!(matches!(s.put_chunk("worker rust-1", "put-1", 0, b"x", false), Err(Error::ResourceExhausted(_))));
    let (_, size) = s.append("worker rust-1", "stream-0", 0, b"abc", true).unwrap().unwrap();
    assert_eq!(size, 3);
    // A dropped stream's upload is gone, and a late chunk does not start it again.
    s.abandon("stream-1");
    assert!(matches!(s.append("worker rust-1", "stream-1", 0, b"x", false), Err(Error::InvalidArgument(m)) if m.contains("unknown")));
    assert_eq!(s.open_uploads(), MAX_UPLOADS_PER_CLIENT - 1);
}

#[test]
fn near_the_quota_bytes_stored_already_may_be_uploaded_again_and_sizes_read_well() {
    let dir = tempfile::tempdir().unwrap();
    let s = BlobStore::open(dir.path(), 100).unwrap();
    s.put_bytes(&[1u8; 90]).unwrap();
    // The same 90 bytes again, in two chunks: the last one completes a stored blob.
    s.put_chunk("c", "again", 0, &[1u8; 5], false).unwrap();
    s.put_chunk("c", "again", 5, &[1u8; 85], true).unwrap();
    assert_eq!(s.stored_bytes(), 90);
    let full = s.put_chunk("c", "new", 0, &[2u8; 20], true).unwrap_err();
    assert!(matches!(&full, Error::ResourceExhausted(m) if m.contains("20 bytes more would pass its quota of 100 bytes")), "{full:?}");
    assert_eq!((mib(1536), mib(3 << 20)), ("1.5 KiB".to_string(), "3.0 MiB".to_string()));
}

#[test]
fn the_quota_counts_stored_blobs_and_unfinished_uploads() {
    let dir = tempfile::tempdir().unwrap();
    let s = BlobStore::open(dir.path(), 100).unwrap();
    s.put_bytes(&[1u8; 60]).unwrap();
    s.put_bytes(&[1u8; 60]).unwrap(); // the same bytes again take no room
    s.put_chunk("10.0.0.1", "u", 0, &[2u8; 30], false).unwrap();
    let full = s.put_chunk("10.0.0.1", "u", 30, &[2u8; 20], false).unwrap_err();
    assert!(matches!(&full, Error::ResourceExhausted(m) if m.contains("blob store is full") && m.contains("codecbench gc")), "{full:?}");
    assert!(matches!(s.put_bytes(&[3u8; 20]), Err(Error::ResourceExhausted(_))));
    s.put_chunk("10.0.0.1", "u", 30, &[2u8; 10], true).unwrap();
    assert_eq!(s.stored_bytes(), 100);
    // Reopened, the store counts what is on disk.
    drop(s);
    assert_eq!(BlobStore::open(dir.path(), 100).unwrap().stored_bytes(), 100);
}

#[test]
fn collect_removes_old_blobs_no_run_needs_and_keeps_fresh_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = BlobStore::open(dir.path(), u64::MAX).unwrap();
    s.grace = Duration::from_millis(300);
    let needed = s.put_bytes(b"needed").unwrap();
    let old = s.put_bytes(b"old").unwrap();
    let again = s.put_bytes(b"stored again").unwrap();
    std::thread::sleep(Duration::from_millis(400));
    // Stored again (a new run's canonical data): fresh, so kept until its run names it.
    assert_eq!(s.put_bytes(b"stored again").unwrap(), again);
    let (fresh, _) = s.put_chunk("10.0.0.1", "u", 0, b"just uploaded", true).unwrap().unwrap();
    let keep: HashSet<String> = [needed.clone()].into();
    let dry = s.collect(&keep, true).unwrap();
    assert_eq!((dry.removed, dry.removed_bytes, dry.kept), (1, 3, 3));
    assert!(s.path(&old).is_ok(), "a dry run removes nothing");
    assert_eq!(s.collect(&keep, false).unwrap(), dry);
    assert!(matches!(s.path(&old), Err(Error::NotFound(_))));
    for id in [&needed, &again, &fresh] {
        assert!(s.path(id).is_ok(), "{id}");
    }
    assert_eq!(s.stored_bytes(), 6 + 12 + 13);
}

#[test]
fn compressed_sizes_are_what_the_libraries_produce_and_are_remembered() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let s = BlobStore::open(dir.path(), u64::MAX).unwrap();
    let data: Vec<u8> = (0..200_000u32).flat_map(|i| format!("{{\"id\":{},\"name\":\"n{}\"}},", i, i % 97).into_bytes()).collect();
    let id = s.put_bytes(&data).unwrap();
    assert_eq!(s.known_compressed(&id), None);
    let c = s.compressed(&id).unwrap();
    // The same figures as compressing in memory, and both streams decompress to the payload.
    let mut gz = flate2::write::GzEncoder::new(vec![], flate2::Compression::new(GZIP_LEVEL));
    gz.write_all(&data).unwrap();
    let gz = gz.finish().unwrap();
    let zs = zstd::encode_all(&data[..], ZSTD_LEVEL).unwrap();
    assert_eq!(c, Compressed { gzip: gz.len() as u64, zstd: zs.len() as u64 });
    let mut back = vec![];
    flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut back).unwrap();
    assert_eq!(back, data);
    assert_eq!(zstd::decode_all(&zs[..]).unwrap(), data);
    assert!(c.gzip < data.len() as u64 / 3 && c.zstd < data.len() as u64 / 3, "{c:?} of {}", data.len());
    assert_eq!(s.known_compressed(&id), Some(c));
    assert!(matches!(s.compressed(&"0".repeat(64)), Err(Error::NotFound(_))));
}

#[test]
fn put_with_streams_into_the_store_within_the_quota() {
    let dir = tempfile::tempdir().unwrap();
    let s = BlobStore::open(dir.path(), 1000).unwrap();
    let (id, size) = s.put_with(|w| {
        for _ in 0..10 {
            w.write_all(&[7u8; 50])?;
        }
        Ok(500)
    }).unwrap();
    assert_eq!(size, 500);
    assert_eq!(id, s.put_bytes(&[7u8; 500]).unwrap(), "the same id as the bytes stored at once");
    let full = s.put_with(|w| {
        for _ in 0..20 {
            w.write_all(&[8u8; 50])?;
        }
        Ok(1000)
    }).unwrap_err();
    assert!(matches!(&full, Error::ResourceExhausted(m) if m.contains("blob store is full")), "{full:?}");
    assert_eq!(fs::read_dir(dir.path().join("uploads")).unwrap().count(), 0, "no temporary file is left");
    assert_eq!(s.stored_bytes(), 500);
}

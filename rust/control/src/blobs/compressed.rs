//! Each payload's gzip and zstd sizes, measured from the stored file with the standard libraries
//! (flate2, zstd) at their default levels. A child of blobs.rs.
use std::fs::File;
use std::io::Write;
use std::path::Path;

/// The compression levels the sizes are reported at: gzip's default (6) and zstd's default (3),
/// what a service that turns compression on without tuning it gets.
pub const GZIP_LEVEL: u32 = 6;
pub const ZSTD_LEVEL: i32 = 3;

/// A payload's size after compression (whole-blob, one stream each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compressed {
    pub gzip: u64,
    pub zstd: u64,
}

/// A writer that only counts: the compressors write into it, so a 100 MiB payload is measured
/// without holding its compressed form.
#[derive(Default)]
struct Counting(u64);

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The gzip (level 6) and zstd (level 3) sizes of the file at `path`, streamed through both.
pub fn compressed_sizes(path: &Path) -> std::io::Result<Compressed> {
    let mut gzip = flate2::write::GzEncoder::new(Counting::default(), flate2::Compression::new(GZIP_LEVEL));
    let mut zstd = zstd::stream::write::Encoder::new(Counting::default(), ZSTD_LEVEL)?;
    let mut file = std::io::BufReader::new(File::open(path)?);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = std::io::Read::read(&mut file, &mut buf)?;
        if n == 0 {
            break;
        }
        gzip.write_all(&buf[..n])?;
        zstd.write_all(&buf[..n])?;
    }
    Ok(Compressed { gzip: gzip.finish()?.0, zstd: zstd.finish()?.0 })
}

//! Golden vectors shared with the other languages (`codecs/vectors/`): for each dataset, a few
//! canonical records (`<dataset>.pb`, protobuf, as control ships them) and this implementation's
//! payload per format (`<dataset>.rust.<ext>`, the format's catalogue `fileExtension`: tools read
//! `owners.rust.json` as JSON).
use crate::registry;
use codecbench_datasets::{generate, DATASETS};
use std::path::Path;

/// Records per dataset in the vectors, and their seed.
pub const COUNT: u32 = 3;
pub const SEED: u64 = 1;

/// (file name, bytes) of every vector.
pub fn all() -> Vec<(String, Vec<u8>)> {
    let mut out = vec![];
    for d in DATASETS {
        let records = generate(d, COUNT, SEED).expect("known dataset");
        out.push((format!("{d}.pb"), records.to_canonical_bytes()));
        // Vectors are per format, written by its reference implementation (the id is the format).
        for codec in registry().into_iter().filter(|c| crate::format_of(c.meta().id) == c.meta().id) {
            let id = codec.meta().id;
            out.push((file_name(d, id, "rust"), codec.encode(&records).expect("encoding generated records")));
        }
    }
    out
}

/// A vector's file name: `<dataset>.<language>.<the format's extension>`.
pub fn file_name(dataset: &str, format: &str, language: &str) -> String {
    let ext = crate::file_extension(format).unwrap_or_else(|| panic!("codecs/catalogue.yaml gives format {format} no fileExtension"));
    format!("{dataset}.{language}.{ext}")
}

pub fn write(dir: &Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    let files = all();
    for (name, bytes) in &files {
        std::fs::write(dir.join(name), bytes)?;
    }
    Ok(files.len())
}

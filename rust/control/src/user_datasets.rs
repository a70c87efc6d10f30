//! A user's datasets (Scenario.user_datasets): control knows nothing of their schema. It checks
//! what the harness declared, lets the workers' fingerprints vouch for the models, and makes each
//! count's canonical blob from the records blob by cycling through its records.
use codecbench_datasets::DATASETS;
use codecbench_proto::v1::{Scenario, UserDataset};
use prost::encoding::{decode_key, decode_varint, encode_key, encode_varint, WireType};

/// Field names in self-describing payloads: each field's json_name, or the .proto's own.
pub const FIELD_NAMES: &[&str] = &["json", "proto"];

/// What the scenario says about dataset `id`, when it is a user's.
pub fn find<'a>(s: &'a Scenario, id: &str) -> Option<&'a UserDataset> {
    s.user_datasets.iter().find(|u| u.id == id)
}

/// "json" for an empty `field_names` (the default).
pub fn field_names(u: &UserDataset) -> &str {
    if u.field_names.is_empty() { "json" } else { &u.field_names }
}

/// Refuses a malformed declaration, naming the dataset and the field.
pub fn check(s: &Scenario) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    for u in &s.user_datasets {
        let id = &u.id;
        let at = format!("userDatasets {id:?}");
        if id.is_empty() || !id.starts_with(|c: char| c.is_ascii_lowercase())
            || !id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') || id.len() > 64
        {
            return Err(format!("{at}: an id is 1 to 64 lowercase letters, digits and _, starting with a letter"));
        }
        if DATASETS.contains(&id.as_str()) {
            return Err(format!("{at}: {id:?} is a built-in dataset's id; give yours another"));
        }
        if !seen.insert(id.as_str()) {
            return Err(format!("{at}: declared twice"));
        }
        if u.message.is_empty() || u.fingerprint.is_empty() || u.records_blob_id.is_empty() {
            return Err(format!("{at}: message, fingerprint and recordsBlobId are all needed (the harness fills them from proto, message and records)"));
        }
        if u.record_count == 0 {
            return Err(format!("{at}: recordCount must be at least 1"));
        }
        if !u.field_names.is_empty() && !FIELD_NAMES.contains(&u.field_names.as_str()) {
            return Err(format!("{at}: fieldNames {:?} is not one of {}", u.field_names, FIELD_NAMES.join(", ")));
        }
    }
    Ok(())
}

/// The records of a records blob: each field 1 of the list message, as its bytes.
pub fn records(blob: &[u8]) -> Result<Vec<&[u8]>, String> {
    let mut out = vec![];
    let mut rest = blob;
    while !rest.is_empty() {
        let at = blob.len() - rest.len();
        let (tag, wire) = decode_key(&mut rest).map_err(|e| format!("byte {at}: {e}"))?;
        if tag != 1 || wire != WireType::LengthDelimited {
            return Err(format!("byte {at}: field {tag} ({wire:?}), where each record is field 1, length-delimited"));
        }
        let len = decode_varint(&mut rest).map_err(|e| format!("byte {at}: {e}"))? as usize;
        if len > rest.len() {
            return Err(format!("byte {at}: a record of {len} bytes, with {} left", rest.len()));
        }
        out.push(&rest[..len]);
        rest = &rest[len..];
    }
    Ok(out)
}

/// Writes the canonical blob of `count` records: the file's records in order, from the first
/// again once they run out (the report says a count cycled).
pub fn write_cycled(records: &[&[u8]], count: u32, out: &mut dyn std::io::Write) -> std::io::Result<u64> {
    if records.is_empty() {
        return Err(std::io::Error::other("the records blob holds no record"));
    }
    let mut written = 0u64;
    let mut head = Vec::with_capacity(16);
    for i in 0..count as usize {
        let r = records[i % records.len()];
        head.clear();
        encode_key(1, WireType::LengthDelimited, &mut head);
        encode_varint(r.len() as u64, &mut head);
        out.write_all(&head)?;
        out.write_all(r)?;
        written += (head.len() + r.len()) as u64;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob(records: &[&[u8]]) -> Vec<u8> {
        let mut out = vec![];
        write_cycled(records, records.len() as u32, &mut out).unwrap();
        out
    }

    #[test]
    fn a_count_past_the_file_cycles_through_its_records() {
        let file = blob(&[b"a", b"bb", b""]);
        let recs = records(&file).unwrap();
        assert_eq!(recs, vec![&b"a"[..], b"bb", b""]);
        let mut out = vec![];
        let size = write_cycled(&recs, 7, &mut out).unwrap();
        assert_eq!(size as usize, out.len());
        assert_eq!(records(&out).unwrap(), vec![&b"a"[..], b"bb", b"", b"a", b"bb", b"", b"a"]);
        let mut short = vec![];
        write_cycled(&recs, 2, &mut short).unwrap();
        assert_eq!(records(&short).unwrap(), vec![&b"a"[..], b"bb"]);
    }

    #[test]
    fn a_blob_that_is_not_a_record_list_is_named() {
        assert!(records(&[0x08, 0x01]).unwrap_err().contains("field 1 (Varint)"));
        assert!(records(&[0x0a, 0x05, 1]).unwrap_err().contains("a record of 5 bytes, with 1 left"));
        assert!(write_cycled(&[], 3, &mut vec![]).is_err());
    }

    #[test]
    fn a_declaration_is_checked() {
        let good = UserDataset {
            id: "orders".into(), message: "acme.Order".into(), fingerprint: "f".into(), records_blob_id: "b".into(),
            record_count: 2, ..Default::default()
        };
        let err = |f: &dyn Fn(&mut UserDataset)| {
            let mut u = good.clone();
            f(&mut u);
            check(&Scenario { user_datasets: vec![u], ..Default::default() }).err().unwrap_or_default()
        };
        assert_eq!(err(&|_| {}), "");
        assert!(err(&|u| u.id = "Orders".into()).contains("lowercase"));
        assert!(err(&|u| u.id = "owners".into()).contains("built-in"));
        assert!(err(&|u| u.record_count = 0).contains("recordCount"));
        assert!(err(&|u| u.records_blob_id.clear()).contains("recordsBlobId"));
        assert!(err(&|u| u.field_names = "camel".into()).contains("fieldNames \"camel\""));
        let twice = Scenario { user_datasets: vec![good.clone(), good], ..Default::default() };
        assert!(check(&twice).unwrap_err().contains("declared twice"));
    }
}

//! `matrix`: one record is one row of decimal numbers written as strings with 10 decimal places
//! (about 1.4 KB of JSON per row; 1 MiB is about 750 rows).
use crate::common::Gen;
use codecbench_proto::v1::MatrixRow;

pub const COLUMNS: usize = 100;

pub fn record(g: &mut Gen, _index: usize) -> MatrixRow {
    MatrixRow {
        cells: (0..COLUMNS)
            .map(|_| {
                let sign = if g.bool() { "-" } else { "" };
                format!("{sign}{}.{}", g.int(0, 99), g.digits(10))
            })
            .collect(),
    }
}

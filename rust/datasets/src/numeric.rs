//! `numeric`: number-heavy; ten coordinates whose timestamps do not fit an int32.
use crate::common::Gen;
use codecbench_proto::v1::{NumericCoordinate, NumericRecord};

pub fn record(g: &mut Gen, index: usize) -> NumericRecord {
    NumericRecord {
        id: g.uuid(),
        index: index as i32,
        numbr: g.int32(0, 100),
        coordinates: (0..10)
            .map(|_| NumericCoordinate {
                timestamp: g.int(i64::from(u32::MAX) + 1, 9_999_999_999),
                latitude: g.decimal(-90.0, 90.0, 6),
                longitude: g.decimal(-180.0, 180.0, 6),
            })
            .collect(),
    }
}

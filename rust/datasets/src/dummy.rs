//! `dummy`: a string-heavy profile of 22 fields (about 1 KB as JSON).
use crate::common::{Gen, CITIES, STATES, STREETS};
use codecbench_proto::v1::{DummyFriend, DummyRecord};

const EYES: &[&str] = &["blue", "brown", "green"];
const FRUITS: &[&str] = &["apple", "banana", "strawberry"];
const COMPANIES: &[&str] = &[
    "ZENTIA", "ACCUPRINT", "GEEKOSIS", "QUILTIGEN", "XYMONK", "ZILLACOM", "ORBAXTER", "PLASMOS",
    "ECRATIC", "MEDIFAX", "TERRAGEN", "NIMBUSIO",
];

pub fn record(g: &mut Gen, index: usize) -> DummyRecord {
    let (first, last, gender) = g.person();
    let name = format!("{first} {last}");
    let company = g.pick(COMPANIES).to_string();
    let (y, mo, d) = (g.int(2014, 2023), g.int(1, 12), g.int(1, 28));
    let (h, mi, s) = (g.int(0, 23), g.int(0, 59), g.int(0, 59));
    DummyRecord {
        id: g.hex(24),
        index: index as i32,
        guid: g.uuid(),
        is_active: g.bool(),
        balance: g.decimal(1000.0, 4000.0, 2),
        picture: "http://placehold.it/32x32".to_string(),
        age: g.int32(20, 40),
        eye_color: g.pick(EYES).to_string(),
        email: format!("{}{}@{}.com", first.to_lowercase(), last.to_lowercase(), company.to_lowercase()),
        phone: format!("+1 ({}) {}-{}", g.int(200, 999), g.int(100, 999), g.digits(4)),
        address: format!("{} {}, {}, {}, {}", g.int(100, 999), g.pick(STREETS), g.pick(CITIES), g.pick(STATES), g.int(1000, 9999)),
        about: format!("{}\r\n", g.text(250, 400)),
        registered: format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}-00:00"),
        latitude: g.decimal(-90.0, 90.0, 6),
        longitude: g.decimal(-180.0, 180.0, 6),
        tags: g.words(7),
        friends: (0..3)
            .map(|id| {
                let (f, l, _) = g.person();
                DummyFriend { id, name: format!("{f} {l}") }
            })
            .collect(),
        greeting: format!("Hello, {name}! You have {} unread messages.", g.int(1, 20)),
        favorite_fruit: g.pick(FRUITS).to_string(),
        name,
        gender: gender.to_string(),
        company,
    }
}

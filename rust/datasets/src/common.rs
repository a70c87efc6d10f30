//! Value helpers shared by the dataset generators: one seeded ChaCha stream per dataset.
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub struct Gen {
    rng: ChaCha8Rng,
}

pub const LOREM: &[&str] = &[
    "lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipisicing", "elit", "sed", "do",
    "eiusmod", "tempor", "incididunt", "ut", "labore", "et", "dolore", "magna", "aliqua", "enim",
    "ad", "minim", "veniam", "quis", "nostrud", "exercitation", "ullamco", "laboris", "nisi",
    "aliquip", "ex", "ea", "commodo", "consequat", "duis", "aute", "irure", "in", "reprehenderit",
    "voluptate", "velit", "esse", "cillum", "eu", "fugiat", "nulla", "pariatur", "excepteur",
    "sint", "occaecat", "cupidatat", "non", "proident", "sunt", "culpa", "qui", "officia",
    "deserunt", "mollit", "anim", "id", "est", "Lorem",
];
pub const FIRST_FEMALE: &[&str] = &[
    "Josefa", "Kitty", "Miranda", "Georgette", "Alice", "Beatriz", "Carla", "Dolores", "Elena",
    "Fiona", "Gloria", "Helena", "Ines", "Julia", "Kara", "Lucia", "Marta", "Nadia", "Olga", "Paula",
];
pub const FIRST_MALE: &[&str] = &[
    "Alberto", "Bruno", "Carlos", "Diego", "Emil", "Felix", "Gustavo", "Hugo", "Ivan", "Jorge",
    "Karl", "Luis", "Marco", "Nuno", "Oscar", "Pedro", "Rafael", "Samuel", "Tomas", "Victor",
];
pub const LAST: &[&str] = &[
    "Grant", "Brock", "Moody", "Sherman", "Pascoal", "Polich", "Silva", "Santos", "Ferreira",
    "Costa", "Oliveira", "Martins", "Walker", "Hughes", "Bennett", "Foster", "Hayes", "Dunn",
    "Mendes", "Lopes", "Barros", "Rocha", "Morgan", "Reyes", "Cruz", "Nunes",
];
pub const STREETS: &[&str] = &[
    "Hubbard Street", "Fernando Namora", "Main Avenue", "Kings Road", "Elm Street",
    "Ocean Parkway", "Willow Place", "Baker Street", "Oak Lane", "Harbor Drive",
];
pub const CITIES: &[&str] = &[
    "Roderfield", "Coimbra", "Lisbon", "Porto", "Braga", "Springfield", "Riverside", "Fairview",
    "Kingston", "Ashford",
];
pub const STATES: &[&str] = &[
    "Massachusetts", "Ohio", "Texas", "Oregon", "Vermont", "Nevada", "Georgia", "Utah",
];

impl Gen {
    /// One stream per (dataset, seed): the dataset id salts the seed so datasets are independent.
    pub fn new(dataset: &str, seed: u64) -> Self {
        let salt = dataset.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        Gen { rng: ChaCha8Rng::seed_from_u64(seed ^ salt) }
    }

    pub fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.rng.random_range(0..from.len())]
    }

    pub fn int(&mut self, lo: i64, hi_inclusive: i64) -> i64 {
        self.rng.random_range(lo..=hi_inclusive)
    }

    pub fn int32(&mut self, lo: i32, hi_inclusive: i32) -> i32 {
        self.rng.random_range(lo..=hi_inclusive)
    }

    pub fn bool(&mut self) -> bool {
        self.rng.random_bool(0.5)
    }

    /// A double with exactly `decimals` decimal places (the nearest double to that decimal), so
    /// every language prints and parses it back to the same value.
    pub fn decimal(&mut self, lo: f64, hi: f64, decimals: i32) -> f64 {
        let scale = 10f64.powi(decimals);
        let units = self.rng.random_range((lo * scale) as i64..=(hi * scale) as i64);
        units as f64 / scale
    }

    pub fn hex(&mut self, len: usize) -> String {
        (0..len).map(|_| char::from_digit(self.rng.random_range(0..16), 16).unwrap()).collect()
    }

    pub fn alnum_upper(&mut self, len: usize) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        (0..len).map(|_| A[self.rng.random_range(0..A.len())] as char).collect()
    }

    pub fn alnum_lower(&mut self, len: usize) -> String {
        const A: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
        (0..len).map(|_| A[self.rng.random_range(0..A.len())] as char).collect()
    }

    pub fn digits(&mut self, len: usize) -> String {
        (0..len).map(|_| char::from_digit(self.rng.random_range(0..10), 10).unwrap()).collect()
    }

    /// A version-4-shaped UUID string.
    pub fn uuid(&mut self) -> String {
        let variant = ["8", "9", "a", "b"][self.rng.random_range(0..4)];
        format!("{}-{}-4{}-{}{}-{}", self.hex(8), self.hex(4), self.hex(3), variant, self.hex(3), self.hex(12))
    }

    pub fn words(&mut self, n: usize) -> Vec<String> {
        (0..n).map(|_| self.pick(LOREM).to_string()).collect()
    }

    /// A sentence of lorem words, capitalised, ending with a full stop.
    pub fn sentence(&mut self) -> String {
        let n = self.rng.random_range(4..=14);
        let mut s = self.words(n).join(" ");
        if let Some(first) = s.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        s.push('.');
        s
    }

    /// Sentences until at least `min` characters, cut to at most `max` at a word boundary.
    pub fn text(&mut self, min: usize, max: usize) -> String {
        let target = self.rng.random_range(min..=max);
        let mut s = String::new();
        while s.len() < target {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&self.sentence());
        }
        if s.len() > max {
            let cut = s[..max].rfind(' ').unwrap_or(max);
            s.truncate(cut);
            s.push('.');
            while s.len() < min {
                s.push('.');
            }
            if s.len() > max {
                s.truncate(max);
            }
        }
        s
    }

    pub fn person(&mut self) -> (String, String, &'static str) {
        let female = self.bool();
        let first = if female { self.pick(FIRST_FEMALE) } else { self.pick(FIRST_MALE) };
        (first.to_string(), self.pick(LAST).to_string(), if female { "female" } else { "male" })
    }
}

//! `media`: jvm-serializers' MediaContent (also Apache Fory's benchmark record): a video's metadata
//! and two to four images. Optional strings are set on some records and unset on others; names
//! and titles mix ASCII with Latin, Greek, Cyrillic and CJK characters.
use crate::common::Gen;
use codecbench_proto::v1::{Media, MediaContent, MediaImage, MediaImageSize, MediaPlayer};

const PERSONS: &[&str] = &["Bill Gates", "Steve Jobs", "Zoë Saldaña", "Björk Guðmundsdóttir", "Αλέξης Τσίπρας",
    "Пётр Ильич", "李小龙", "宮崎 駿", "Ada Lovelace", "Grace Hopper"];
const TITLES: &[&str] = &["Javaone Keynote", "Conférence d'été", "Ünïcödé Démo", "Café Müller", "東京 Tour",
    "Москва Live", "Sunset Ρίο", "Hello World"];
const FORMATS: &[&str] = &["video/mpg4", "video/webm", "video/quicktime", "video/x-matroska"];
const COPYRIGHT: &[&str] = &["© 2009 Sun Microsystems", "© Oracle", "CC BY-SA 4.0", "© Fondation Wikimédia"];

fn some<T>(g: &mut Gen, value: impl FnOnce(&mut Gen) -> T) -> Option<T> {
    if g.bool() { Some(value(g)) } else { None }
}

pub fn record(g: &mut Gen, index: usize) -> MediaContent {
    let (width, height) = if g.bool() { (640, 480) } else { (1920, 1080) };
    let slug = g.alnum_lower(8);
    let n_persons = g.int(1, 4) as usize;
    let persons = (0..n_persons).map(|_| g.pick(PERSONS).to_string()).collect();
    let media = Media {
        uri: format!("http://videos.example.com/{index}/{slug}.mpg"),
        title: some(g, |g| g.pick(TITLES).to_string()),
        width,
        height,
        format: g.pick(FORMATS).to_string(),
        // Milliseconds up to ~11 days and sizes up to 64 GiB: both need an int64.
        duration: g.int(1_000, 1_000_000_000),
        size: g.int(1 << 20, 1 << 36),
        bitrate: some(g, |g| g.int32(64, 65_536)),
        persons,
        player: if g.bool() { MediaPlayer::Java } else { MediaPlayer::Flash } as i32,
        copyright: some(g, |g| g.pick(COPYRIGHT).to_string()),
    };
    let images = (0..g.int(2, 4))
        .map(|i| {
            let large = g.bool();
            MediaImage {
                uri: format!("http://images.example.com/{index}/{slug}-{i}.jpg"),
                title: some(g, |g| g.pick(TITLES).to_string()),
                width: if large { 1024 } else { 320 },
                height: if large { 768 } else { 240 },
                size: if large { MediaImageSize::Large } else { MediaImageSize::Small } as i32,
            }
        })
        .collect();
    MediaContent { media: Some(media), images }
}

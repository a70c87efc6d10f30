//! `beers`: a catalogue entry with 100 to 600 characters of tasting notes.
use crate::common::Gen;
use codecbench_proto::v1::BeerRecord;

const ADJ: &[&str] = &["Hop", "Golden", "Dark", "Hazy", "Old", "Wild", "Red", "Smoked", "Bitter", "Velvet"];
const NOUN: &[&str] = &["Harvest", "Anchor", "Fox", "Lantern", "River", "Monk", "Crown", "Meadow", "Forge", "Tide"];
const STYLES: &[&str] = &["American IPA", "Pale Ale", "Stout", "Porter", "Pilsner", "Saison", "Dubbel", "Hefeweizen", "Barleywine"];
const AVAIL: &[&str] = &["Year round", "Seasonal", "Limited", "Spring", "Winter"];
const SERVING: &[&str] = &["Pint glass", "Tulip", "Snifter", "Mug", "Goblet", "Can"];

pub fn record(g: &mut Gen, _index: usize) -> BeerRecord {
    BeerRecord {
        alcohol: g.decimal(3.0, 12.0, 1),
        name: format!("{} {} {}", g.pick(ADJ), g.pick(NOUN), g.int(1, 999)),
        brewed_by: format!("{} {} Brewing Co.", g.pick(ADJ), g.pick(NOUN)),
        style: g.pick(STYLES).to_string(),
        availability: g.pick(AVAIL).to_string(),
        serving: g.pick(SERVING).to_string(),
        details: g.text(100, 600),
    }
}

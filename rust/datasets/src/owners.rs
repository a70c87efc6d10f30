//! `owners`: one car owner with four cars of 18 fields each.
use crate::common::{Gen, CITIES, STREETS};
use codecbench_proto::v1::{OwnerCar, OwnerRecord};

const CARS: &[(&str, &[&str])] = &[
    ("Opel", &["Corsa", "Astra", "Insignia"]),
    ("Renault", &["Clio", "Megane", "Kangoo"]),
    ("Peugeot", &["208", "308", "Partner"]),
    ("Volkswagen", &["Polo", "Golf", "Transporter"]),
    ("Toyota", &["Yaris", "Corolla", "RAV4"]),
    ("Fiat", &["Panda", "500", "Doblo"]),
];
const BODIES: &[&str] = &["Van", "Hatchback", "Sedan", "Estate", "SUV", "Coupe"];
const TYRES: &[&str] = &["195/55R15", "205/55R16", "225/45R17", "175/65R14", "215/60R16"];
const FUELS: &[&str] = &["Diesel", "Petrol", "Hybrid", "Electric", "LPG"];
const COLORS: &[&str] = &["Grey", "Black", "White", "Red", "Blue", "Silver", "Green"];

fn car(g: &mut Gen, uid: i32) -> OwnerCar {
    let (brand, models) = CARS[g.int(0, CARS.len() as i64 - 1) as usize];
    let letters = g.alnum_upper(20).chars().filter(char::is_ascii_alphabetic).take(4).collect::<String>();
    let letters = format!("{letters:A<4}");
    OwnerCar {
        uid,
        brand: brand.to_string(),
        model: g.pick(models).to_string(),
        body_type: g.pick(BODIES).to_string(),
        approval: format!("{}.{}", g.alnum_upper(15), g.int(1995, 2024)),
        chassis: g.alnum_upper(17),
        tyre_size: g.pick(TYRES).to_string(),
        weight: g.int32(800, 2500),
        fuel: g.pick(FUELS).to_string(),
        seats: g.int32(2, 7),
        noise: g.int32(40, 80),
        co2_emissions: g.decimal(0.0, 250.0, 1),
        engine_size: g.int32(900, 3000),
        power: g.int32(40, 300),
        color: g.pick(COLORS).to_string(),
        consumption: g.decimal(3.0, 12.0, 1),
        plate: format!("{}{}{}", &letters[..2], g.digits(2), &letters[2..4]),
        date: format!("{:02}{:02}{}", g.int(1, 28), g.int(1, 12), g.int(1995, 2024)),
    }
}

pub fn record(g: &mut Gen, index: usize) -> OwnerRecord {
    let (first, last, _) = g.person();
    let uid = index as i32 + 1;
    OwnerRecord {
        uid,
        name: format!("{first} {last}"),
        telephone: g.int(200_000_000, 999_999_999),
        address: format!("{}, Rua {}", g.pick(CITIES), g.pick(STREETS)),
        licence_number: g.int32(1_000_000, 9_999_999),
        id_number: g.int32(100_000_000, 999_999_999),
        tax_number: g.int32(100_000_000, 999_999_999),
        cars: (0..4).map(|c| car(g, uid * 4 - 3 + c)).collect(),
    }
}

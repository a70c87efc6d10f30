//! `docs`: a nested business document, latency-sized (about 500 bytes as JSON).
use crate::common::{Gen, FIRST_MALE, LAST, STREETS};
use codecbench_proto::v1::{
    DocAddress, DocData, DocDelivery, DocDepartment, DocEmployee, DocGood, DocOwner, DocPrice,
    DocRecord, DocTransaction,
};

const KINDS: &[&str] = &["CODE", "CASH", "CARD", "WIRE"];
const CARRIERS: &[&str] = &["TTC", "DHL", "UPS", "DPD", "GLS"];
const COUNTRIES: &[&str] = &["uk", "de", "fr", "pt", "es", "it", "pl"];
const GOODS: &[&str] = &["toaster", "kettle", "blender", "mixer", "grill", "fryer", "juicer"];

pub fn record(g: &mut Gen, _index: usize) -> DocRecord {
    let price = |g: &mut Gen| format!("{}.{}", g.int(0, 99), g.int(0, 9));
    DocRecord {
        name: format!("document_{}", g.alnum_lower(10)),
        department: Some(DocDepartment {
            code: g.uuid(),
            time: g.int(1_500_000_000, 1_800_000_000),
            employee: Some(DocEmployee {
                name: g.pick(FIRST_MALE).to_string(),
                surname: g.pick(LAST).to_string(),
                code: g.uuid(),
            }),
        }),
        price: Some(DocPrice { category_a: price(g), category_b: price(g), category_c: price(g) }),
        owner: Some(DocOwner { uuid: g.uuid(), secret: g.alnum_lower(18) }),
        data: Some(DocData {
            transaction: Some(DocTransaction {
                r#type: g.pick(KINDS).to_string(),
                uuid: g.alnum_lower(16),
                point_code: format!("{:02}", g.int(1, 99)),
            }),
        }),
        delivery: Some(DocDelivery {
            company: g.pick(CARRIERS).to_string(),
            address: Some(DocAddress {
                code: format!("{:02}", g.int(1, 99)),
                country: g.pick(COUNTRIES).to_string(),
                street: g.pick(STREETS).to_string(),
                apartment: format!("{}{}", g.int(1, 99), ["A", "B", "C"][g.int(0, 2) as usize]),
            }),
        }),
        goods: (0..g.int(1, 4))
            .map(|_| DocGood {
                name: format!("{} v{}", g.pick(GOODS), g.int(1, 20)),
                amount: g.int32(1, 50),
                code: g.alnum_lower(16),
            })
            .collect(),
    }
}

//! The flatbuffers codec: flatc's schema and accessors, absent fields, lazy paths, hostile buffers.
use super::*;

/// The flatbuffers payload is the schema flatc generates: a tiny record's buffer, read back field
/// by field through flatc's own accessors, holds every value under the field it belongs to (every
/// string and vector written, empty ones too; int64 and doubles exact; `type` as flatc's `type_`).
#[test]
fn flatbuffers_payload_reads_back_through_flatcs_accessors() {
    use crate::flatbuffers::fb;
    use codecbench_proto::v1 as pb;
    let car = pb::OwnerCar {
        uid: 3,
        brand: "Škoda".into(),
        model: "a\r\nb ".into(),
        body_type: String::new(),
        weight: -1,
        co2_emissions: 0.1,
        consumption: -2.5,
        plate: "P".into(),
        ..Default::default()
    };
    let owner = pb::OwnerRecord {
        uid: i32::MAX,
        name: "Ann".into(),
        telephone: 5_000_000_000,
        address: String::new(),
        licence_number: i32::MIN,
        id_number: 0,
        tax_number: 42,
        cars: vec![car.clone(), pb::OwnerCar { co2_emissions: -0.0, ..Default::default() }],
    };
    let bytes = Flatbuffers.encode(&Records::Owners(vec![owner.clone(), pb::OwnerRecord::default()])).unwrap();
    let root = ::flatbuffers::root::<fb::OwnersDataset>(&bytes).unwrap();
    let records = root.records().unwrap();
    assert_eq!(records.len(), 2);
    let r = records.get(0);
    assert_eq!((r.uid(), r.name(), r.telephone(), r.address()), (i32::MAX, Some("Ann"), 5_000_000_000, Some("")));
    assert_eq!((r.licence_number(), r.id_number(), r.tax_number()), (i32::MIN, 0, 42));
    let cars = r.cars().unwrap();
    assert_eq!(cars.len(), 2);
    let c = cars.get(0);
    assert_eq!((c.uid(), c.brand(), c.model(), c.body_type(), c.weight(), c.plate()), (3, Some("Škoda"), Some("a\r\nb "), Some(""), -1, Some("P")));
    assert_eq!((c.co2_emissions().to_bits(), c.consumption().to_bits()), (0.1f64.to_bits(), (-2.5f64).to_bits()));
    // A scalar equal to its default is omitted, as flatc's builders (in every language) do; -0.0
    // equals 0.0, so it reads back as 0.0, the same as in protobuf (prost omits it too), which
    // is why no dataset can carry it.
    assert_eq!(cars.get(1).co2_emissions().to_bits(), 0);
    let empty = records.get(1);
    assert_eq!((empty.name(), empty.address(), empty.cars().map(|c| c.len())), (Some(""), Some(""), Some(0)), "empty strings and vectors are written");
    assert_eq!(cars.get(1).date(), Some(""));

    // Nested tables, repeated strings and tables, a bool, a keyword-named field.
    let docs = generate("docs", 1, 4).unwrap();
    let Records::Docs(d) = &docs else { unreachable!() };
    let bytes = Flatbuffers.encode(&docs).unwrap();
    let r = ::flatbuffers::root::<fb::DocsDataset>(&bytes).unwrap().records().unwrap().get(0);
    let (want_dept, want_tx) = (d[0].department.as_ref().unwrap(), d[0].data.as_ref().unwrap().transaction.as_ref().unwrap());
    let dept = r.department().unwrap();
    assert_eq!((dept.code(), dept.time(), dept.employee().unwrap().surname()), (Some(&*want_dept.code), want_dept.time, Some(&*want_dept.employee.as_ref().unwrap().surname)));
    let tx = r.data().unwrap().transaction().unwrap();
    assert_eq!((tx.type_(), tx.point_code()), (Some(&*want_tx.r#type), Some(&*want_tx.point_code)));
    assert_eq!(r.delivery().unwrap().address().unwrap().street(), Some(&*d[0].delivery.as_ref().unwrap().address.as_ref().unwrap().street));
    let goods: Vec<_> = r.goods().unwrap().iter().map(|g| (g.name().unwrap().to_string(), g.amount())).collect();
    assert_eq!(goods, d[0].goods.iter().map(|g| (g.name.clone(), g.amount)).collect::<Vec<_>>());
    let dummy = generate("dummy", 1, 2).unwrap();
    let Records::Dummy(u) = &dummy else { unreachable!() };
    let bytes = Flatbuffers.encode(&dummy).unwrap();
    let r = ::flatbuffers::root::<fb::DummyDataset>(&bytes).unwrap().records().unwrap().get(0);
    assert_eq!((r.id(), r.is_active(), r.balance().to_bits(), r.favorite_fruit()), (Some(&*u[0].id), u[0].is_active, u[0].balance.to_bits(), Some(&*u[0].favorite_fruit)));
    assert_eq!(r.tags().unwrap().iter().collect::<Vec<_>>(), u[0].tags.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r.friends().unwrap().get(2).name(), Some(&*u[0].friends[2].name));
    assert!(u[0].about.ends_with("\r\n") && r.about() == Some(&*u[0].about));
}

/// What flatc's builders write when a writer leaves strings, vectors and tables out (as other
/// libraries may): an absent string reads as "", an absent vector as empty, an absent table as the
/// unset message, in typed and lazy modes; an absent `records` vector is no records.
#[test]
fn flatbuffers_absent_strings_vectors_and_tables_read_as_defaults() {
    use crate::flatbuffers::fb;
    use codecbench_proto::v1 as pb;
    let mut fbb = ::flatbuffers::FlatBufferBuilder::new();
    let company = fbb.create_string("C");
    let delivery = fb::DocDelivery::create(&mut fbb, &fb::DocDeliveryArgs { company: Some(company), address: None });
    let employee = fb::DocEmployee::create(&mut fbb, &fb::DocEmployeeArgs::default());
    let department = fb::DocDepartment::create(&mut fbb, &fb::DocDepartmentArgs { code: None, time: -7, employee: Some(employee) });
    let bare = fb::DocRecord::create(&mut fbb, &fb::DocRecordArgs::default());
    let some = fb::DocRecord::create(&mut fbb, &fb::DocRecordArgs { delivery: Some(delivery), department: Some(department), ..Default::default() });
    let records = fbb.create_vector(&[bare, some]);
    let root = fb::DocsDataset::create(&mut fbb, &fb::DocsDatasetArgs { records: Some(records) });
    fbb.finish(root, None);
    let bytes = fbb.finished_data().to_vec();
    let want = vec![
        pb::DocRecord::default(),
        pb::DocRecord {
            department: Some(pb::DocDepartment { code: String::new(), time: -7, employee: Some(pb::DocEmployee::default()) }),
            delivery: Some(pb::DocDelivery { company: "C".into(), address: None }),
            ..Default::default()
        },
    ];
    assert_eq!(Flatbuffers.decode("docs", &bytes).unwrap(), Records::Docs(want));
    let fields = ["name", "delivery.company", "delivery.address.street", "department.time", "department.employee.name"];
    let got = lazy_values(&Flatbuffers, "docs", &bytes, &fields).unwrap();
    assert_eq!(got, [vec!["", ""], vec!["", "C"], vec!["", ""], vec!["0", "-7"], vec!["", ""]]);

    let mut fbb = ::flatbuffers::FlatBufferBuilder::new();
    let index = fb::DummyRecord::create(&mut fbb, &fb::DummyRecordArgs { index: 5, ..Default::default() });
    let records = fbb.create_vector(&[index]);
    let root = fb::DummyDataset::create(&mut fbb, &fb::DummyDatasetArgs { records: Some(records) });
    fbb.finish(root, None);
    let want = pb::DummyRecord { index: 5, ..Default::default() };
    assert_eq!(Flatbuffers.decode("dummy", fbb.finished_data()).unwrap(), Records::Dummy(vec![want]), "absent tags and friends are empty");

    let mut fbb = ::flatbuffers::FlatBufferBuilder::new();
    let root = fb::MatrixDataset::create(&mut fbb, &fb::MatrixDatasetArgs::default());
    fbb.finish(root, None);
    assert_eq!(Flatbuffers.decode("matrix", fbb.finished_data()).unwrap(), Records::Matrix(vec![]));
    assert_eq!(lazy_values(&Flatbuffers, "matrix", fbb.finished_data(), &["0"]).unwrap(), [Vec::<String>::new()]);
}

/// Lazy reads any dotted path of proto JSON names down to a string or scalar (int64 and int32 in
/// decimal, bools, doubles in shortest form), a matrix row by cell index, and names what is
/// missing as the bson codec does.
#[test]
fn flatbuffers_lazy_reads_paths_and_names_what_is_missing() {
    let docs = generate("docs", 4, 2).unwrap();
    let Records::Docs(r) = &docs else { unreachable!() };
    let bytes = Flatbuffers.encode(&docs).unwrap();
    let got = lazy_values(&Flatbuffers, "docs", &bytes, &["department.time", "delivery.address.street", "data.transaction.type", "price.categoryA"]).unwrap();
    assert_eq!(got[0], r.iter().map(|x| x.department.as_ref().unwrap().time.to_string()).collect::<Vec<_>>());
    assert_eq!(got[1], r.iter().map(|x| x.delivery.as_ref().unwrap().address.as_ref().unwrap().street.clone()).collect::<Vec<_>>());
    assert_eq!(got[2], r.iter().map(|x| x.data.as_ref().unwrap().transaction.as_ref().unwrap().r#type.clone()).collect::<Vec<_>>());
    assert_eq!(got[3], r.iter().map(|x| x.price.as_ref().unwrap().category_a.clone()).collect::<Vec<_>>());
    // int64 past 32 bits, and the extremes of int32 and int64.
    let owners = Records::Owners(vec![
        codecbench_proto::v1::OwnerRecord { telephone: 5_000_000_000, tax_number: i32::MIN, ..Default::default() },
        codecbench_proto::v1::OwnerRecord { telephone: i64::MIN, tax_number: -1, ..Default::default() },
        codecbench_proto::v1::OwnerRecord { telephone: i64::MAX, tax_number: i32::MAX, ..Default::default() },
    ]);
    let got = lazy_values(&Flatbuffers, "owners", &Flatbuffers.encode(&owners).unwrap(), &["telephone", "taxNumber", "name"]).unwrap();
    assert_eq!(got[0], ["5000000000", "-9223372036854775808", "9223372036854775807"]);
    assert_eq!(got[1], ["-2147483648", "-1", "2147483647"]);
    assert_eq!(got[2], ["", "", ""]);
    let dummy = generate("dummy", 2, 1).unwrap();
    let Records::Dummy(u) = &dummy else { unreachable!() };
    let got = lazy_values(&Flatbuffers, "dummy", &Flatbuffers.encode(&dummy).unwrap(), &["_id", "isActive", "balance"]).unwrap();
    assert_eq!(got[0], u.iter().map(|x| x.id.clone()).collect::<Vec<_>>());
    assert_eq!(got[1], u.iter().map(|x| x.is_active.to_string()).collect::<Vec<_>>());
    assert_eq!(got[2].iter().map(|x| x.parse::<f64>().unwrap().to_bits()).collect::<Vec<_>>(), u.iter().map(|x| x.balance.to_bits()).collect::<Vec<_>>());

    let err = |dataset, bytes: &[u8], field| lazy_values(&Flatbuffers, dataset, bytes, &[field]).unwrap_err().0;
    assert_eq!(err("docs", &bytes, "delivery.nope"), "record 0 has no field \"delivery.nope\"");
    assert_eq!(err("docs", &bytes, "nope"), "record 0 has no field \"nope\"");
    assert_eq!(err("docs", &bytes, "goods"), "record 0 field \"goods\" is a repeated field, not a string or integer");
    assert_eq!(err("docs", &bytes, "delivery"), "record 0 field \"delivery\" is a table, not a string or integer");
    assert_eq!(err("docs", &bytes, "name.x"), "record 0 field \"name.x\": \"name\" is a string, not a table");
    assert_eq!(err("docs", &bytes, "department.time.x.y"), "record 0 field \"department.time.x.y\": \"time\" is a int64, not a table");
    assert_eq!(err("docs", &bytes, "delivery_company"), "record 0 has no field \"delivery_company\"", "proto JSON names only");
    let matrix = generate("matrix", 2, 1).unwrap();
    let Records::Matrix(m) = &matrix else { unreachable!() };
    let bytes = Flatbuffers.encode(&matrix).unwrap();
    assert_eq!(lazy_values(&Flatbuffers, "matrix", &bytes, &["99", "0"]).unwrap(), [vec![m[0].cells[99].clone(), m[1].cells[99].clone()], vec![m[0].cells[0].clone(), m[1].cells[0].clone()]]);
    assert_eq!(err("matrix", &bytes, "x"), "record 0 field \"x\": \"x\" is not a cell index");
    assert_eq!(err("matrix", &bytes, "100"), "record 0 has no field \"100\"");
    assert_eq!(err("nope", &bytes, "0"), format!("unknown dataset 'nope' (known: {})", codecbench_datasets::DATASETS.join(", ")));
}

/// Hostile buffers are the verifier's error, in typed and lazy modes, before anything is read or
/// allocated: a vector whose length points past the end, a root offset past the end, and offsets
/// sharing one table to expand a few KiB into megabytes.
#[test]
fn flatbuffers_rejects_lengths_past_the_end_and_shared_expansion() {
    use crate::flatbuffers::fb;
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    let owners = generate("owners", 3, 1).unwrap();
    let good = Flatbuffers.encode(&owners).unwrap();
    // root table -> its vtable -> the `records` field -> the vector's length
    let table = u32_at(&good, 0);
    let vtable = (table as i64 - i64::from(i32::from_le_bytes(good[table..table + 4].try_into().unwrap()))) as usize;
    let field = table + usize::from(u16::from_le_bytes(good[vtable + 4..vtable + 6].try_into().unwrap()));
    let vector = field + u32_at(&good, field);
    assert_eq!(u32_at(&good, vector), 3, "found the records vector");
    for len in [0x7fff_ffffu32, (good.len() / 4) as u32] {
        let mut bad = good.clone();
        bad[vector..vector + 4].copy_from_slice(&len.to_le_bytes());
        let e = Flatbuffers.decode("owners", &bad).unwrap_err().0;
        assert!(e.starts_with("invalid FlatBuffers payload: Range [") && e.contains("is out of bounds") && e.contains("while verifying table field `records`"), "{e}");
        assert_eq!(lazy_values(&Flatbuffers, "owners", &bad, &["name"]).unwrap_err().0, e);
    }
    let mut bad = good.clone();
    bad[..4].copy_from_slice(&(good.len() as u32).to_le_bytes());
    assert!(Flatbuffers.decode("owners", &bad).unwrap_err().0.starts_with("invalid FlatBuffers payload: "));
    // (The last bytes of a buffer may be alignment padding after the first string written: cutting
    // those loses nothing, so the cut here reaches into the string.)
    for short in [&b""[..], b"\x04\x00", &good[..good.len() - 4]] {
        assert!(Flatbuffers.decode("owners", short).unwrap_err().0.contains("out of bounds"), "{short:?}");
    }

    // One beer of 1000 characters, its offset 2000 times in `records`.
    let mut fbb = ::flatbuffers::FlatBufferBuilder::new();
    let details = fbb.create_string(&"d".repeat(1000));
    let beer = fb::BeerRecord::create(&mut fbb, &fb::BeerRecordArgs { details: Some(details), ..Default::default() });
    let records = fbb.create_vector(&[beer; 2000]);
    let root = fb::BeersDataset::create(&mut fbb, &fb::BeersDatasetArgs { records: Some(records) });
    fbb.finish(root, None);
    let shared = fbb.finished_data();
    assert!(shared.len() < 10_000);
    let e = Flatbuffers.decode("beers", shared).unwrap_err().0;
    assert_eq!(e, "invalid FlatBuffers payload: its offsets reach more than 8 times its own size (objects shared to expand it)");
    assert!(lazy_values(&Flatbuffers, "beers", shared, &["details"]).is_err());
}

//! The xml codec: its element mapping on tiny records, text kept byte for byte, other writers'
//! forms read, bad documents refused with precise messages.
use super::*;

/// The element mapping of proto/README.md on tiny records: root `<payload>`, one `<records>` per
/// record, fields in field order under their wire names, every field written (defaults too),
/// repeated fields unwrapped and absent when empty, a matrix row's values as `<cells>`.
#[test]
fn xml_wire_shape_of_tiny_records() {
    use codecbench_proto::v1 as pb;
    let numeric = Records::Numeric(vec![
        pb::NumericRecord {
            id: "a".into(),
            index: 1,
            numbr: -2,
            coordinates: vec![
                pb::NumericCoordinate { timestamp: 5_000_000_000, latitude: 0.1, longitude: -0.0 },
                pb::NumericCoordinate { timestamp: -1, latitude: 12.5, longitude: 2.0 },
            ],
        },
        pb::NumericRecord::default(),
    ]);
    let bytes = Xml.encode(&numeric).unwrap();
    assert_eq!(
        String::from_utf8(bytes.clone()).unwrap(),
        "<payload><records><_id>a</_id><index>1</index><numbr>-2</numbr>\
         <coordinates><timestamp>5000000000</timestamp><latitude>0.1</latitude><longitude>-0</longitude></coordinates>\
         <coordinates><timestamp>-1</timestamp><latitude>12.5</latitude><longitude>2</longitude></coordinates></records>\
         <records><_id/><index>0</index><numbr>0</numbr></records></payload>"
    );
    let Records::Numeric(back) = Xml.decode("numeric", &bytes).unwrap() else { unreachable!() };
    assert_eq!(Records::Numeric(back.clone()), numeric);
    assert_eq!(back[0].coordinates[0].longitude.to_bits(), (-0.0f64).to_bits(), "-0 stays negative zero");

    let matrix = Records::Matrix(vec![pb::MatrixRow { cells: vec!["0.1".into(), "".into(), "-2".into()] }, pb::MatrixRow::default()]);
    let bytes = Xml.encode(&matrix).unwrap();
    assert_eq!(
        String::from_utf8(bytes.clone()).unwrap(),
        "<payload><records><cells>0.1</cells><cells/><cells>-2</cells></records><records/></payload>"
    );
    assert_eq!(Xml.decode("matrix", &bytes).unwrap(), matrix);
    assert_eq!(Xml.encode(&Records::Beers(vec![])).unwrap(), b"<payload/>");
    assert_eq!(Xml.decode("beers", b"<payload/>").unwrap(), Records::Beers(vec![]));

    // A repeated string field and a repeated message field, unwrapped.
    let dummy = generate("dummy", 1, 1).unwrap();
    let Records::Dummy(r) = &dummy else { unreachable!() };
    let text = String::from_utf8(Xml.encode(&dummy).unwrap()).unwrap();
    let tags: String = r[0].tags.iter().map(|t| format!("<tags>{t}</tags>")).collect();
    let friend = &r[0].friends[0];
    let friend = format!("<friends><id>{}</id><name>{}</name></friends>", friend.id, friend.name);
    assert!(r[0].tags.len() > 1 && text.contains(&format!("</longitude>{tags}{friend}")), "{text}");
    assert!(text.starts_with("<payload><records><_id>") && text.contains("</isActive><balance>"), "{text}");
}

/// Text is byte-exact: leading and trailing spaces, CR (written `&#13;`, so XML's line-end
/// normalisation keeps it), `<`, `>`, `&`, quotes, `]]>`, an empty string (`<e/>`), whitespace
/// only, non-ASCII.
#[test]
fn xml_text_survives_byte_exact() {
    use codecbench_proto::v1 as pb;
    let beer = pb::BeerRecord {
        alcohol: 5.0,
        name: "  two leading, two trailing  ".into(),
        brewed_by: "a\r\nb\rc\n".into(),
        style: "<b>&amp; 'q' \"dq\" ]]>".into(),
        availability: String::new(),
        serving: " \t ".into(),
        details: "\u{fc}n\u{ef} \u{20ac}\u{1f600}".into(),
    };
    let records = Records::Beers(vec![beer]);
    let bytes = Xml.encode(&records).unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    for part in [
        "<name>  two leading, two trailing  </name>",
        "<brewedBy>a&#13;\nb&#13;c\n</brewedBy>",
        "<style>&lt;b&gt;&amp;amp; 'q' \"dq\" ]]&gt;</style>",
        "<availability/>",
        "<serving> \t </serving>",
    ] {
        assert!(text.contains(part), "{part} missing in {text}");
    }
    assert_eq!(Xml.decode("beers", &bytes).unwrap(), records);
    // A raw CR LF in the text is a line feed to every XML reader; only `&#13;` / `&#xD;` is a CR.
    let raw = text.replace("a&#13;\nb&#13;c", "a\r\nb&#xD;c");
    let Records::Beers(b) = Xml.decode("beers", raw.as_bytes()).unwrap() else { unreachable!() };
    assert_eq!(b[0].brewed_by, "a\nb\rc\n");
}

/// What other writers may put: a declaration, comments, indentation between elements, `<e></e>`
/// for an empty string, an integer or an exponent in a double field, int64 past 2^53, an absent
/// repeated field (empty).
#[test]
fn xml_reads_other_writers_forms() {
    use codecbench_proto::v1 as pb;
    let doc = r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- written by hand -->
<payload>
  <records>
    <_id></_id>
    <index>1</index>
    <numbr>-2</numbr>
    <coordinates><timestamp>9007199254740993</timestamp><latitude>5</latitude><longitude>-0</longitude></coordinates>
    <coordinates><timestamp>-9223372036854775808</timestamp><latitude>1.5E-7</latitude><longitude>0.1</longitude></coordinates>
  </records>
  <records><_id>x&#xD;&#13;</_id><index>0</index><numbr>0</numbr></records>
</payload>
<!-- done -->
"#;
    let want = Records::Numeric(vec![
        pb::NumericRecord {
            id: String::new(),
            index: 1,
            numbr: -2,
            coordinates: vec![
                pb::NumericCoordinate { timestamp: 9007199254740993, latitude: 5.0, longitude: -0.0 },
                pb::NumericCoordinate { timestamp: i64::MIN, latitude: 1.5e-7, longitude: 0.1 },
            ],
        },
        pb::NumericRecord { id: "x\r\r".into(), index: 0, numbr: 0, coordinates: vec![] },
    ]);
    let got = Xml.decode("numeric", doc.as_bytes()).unwrap();
    assert_eq!(got, want);
    let Records::Numeric(r) = got else { unreachable!() };
    assert_eq!(r[0].coordinates[0].longitude.to_bits(), (-0.0f64).to_bits());
}

/// Malformed XML, trailing content, a wrong root, a non-numeric int, a missing field: each is the
/// codec's error, naming the record and field where there is one.
#[test]
fn xml_rejects_bad_documents_with_precise_messages() {
    let rec = |inner: &str| format!("<payload><records>{inner}</records></payload>");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("numeric", b"<payload></payload>x".to_vec(), "content after the root element </payload>"),
        ("numeric", b"<payload/><payload/>".to_vec(), "content after the root element </payload>"),
        ("numeric", b"<payload/><!-- fine -->\n<x/>".to_vec(), "content after the root element </payload>"),
        ("numeric", b"<root/>".to_vec(), "the root element is <root>, not <payload>"),
        ("numeric", b"text<payload/>".to_vec(), "text where the root element <payload> belongs"),
        ("numeric", b"".to_vec(), "no root element"),
        ("numeric", b"<payload>\xff</payload>".to_vec(), "the payload is not UTF-8"),
        ("numeric", b"<payload><records><_id>a</_id>".to_vec(), "ill-formed document"),
        ("numeric", rec("<_id>a</_id><index>1</index></numbr>").into_bytes(), "expected `</records>`, but `</numbr>` was found"),
        ("numeric", rec("<_id>a</_id><index>x</index><numbr>1</numbr>").into_bytes(), "record 0: index: invalid type: string \"x\", expected i32"),
        ("numeric", rec("<_id>a</_id><index>1</index>").into_bytes(), "record 0: missing field `numbr`"),
        (
            "numeric",
            rec("<_id>a</_id><index>1</index><numbr>1</numbr><coordinates><timestamp>1</timestamp><longitude>2</longitude></coordinates>").into_bytes(),
            "record 0: coordinates: missing field `latitude`",
        ),
        (
            "numeric",
            rec("<_id>a</_id><index>1</index><numbr>1</numbr><coordinates><timestamp>1</timestamp><latitude>north</latitude><longitude>2</longitude></coordinates>").into_bytes(),
            "record 0: coordinates: latitude: invalid type: string \"north\", expected a number",
        ),
        ("beers", rec("<alcohol>1</alcohol><name>a</name><name>b</name>").into_bytes(), "record 0: duplicate field `name`"),
        // Unknown elements, attributes and stray text are refused (Java and the browser refuse them too).
        ("numeric", rec("<_id>a</_id><unknown><a>1</a></unknown><index>1</index><numbr>1</numbr>").into_bytes(), "record 0: unknown element <unknown> (not a field of this message)"),
        ("numeric", b"<payload><records note=\"x\"><_id>a</_id><index>1</index><numbr>1</numbr></records></payload>".to_vec(), "record 0: an attribute `note` (the wire form has none)"),
        ("numeric", rec("<_id>a</_id><index>1</index><numbr>1</numbr><coordinates><timestamp>1</timestamp><latitude>2</latitude><longitude>3</longitude><altitude>4</altitude></coordinates>").into_bytes(), "record 0: coordinates: unknown element <altitude>"),
        ("numeric", rec("<_id>a</_id>text<index>1</index><numbr>1</numbr>").into_bytes(), "record 0: text where elements belong"),
        ("matrix", rec("<cells>1</cells><x>2</x>").into_bytes(), "record 0: content other than <cells> elements in a record of <cells> elements"),
    ];
    for (dataset, bytes, want) in cases {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        match Xml.decode(dataset, &bytes) {
            Ok(r) => panic!("{text:?} decoded as {r:?}"),
            Err(e) => assert!(e.0.contains(want), "{text:?}: {:?} does not say {want:?}", e.0),
        }
    }
}

//! `xml`: quick-xml's serde (`serialize` feature), in the element mapping of proto/README.md:
//! root `<payload>`, each record a `<records>` element, each field an element named by its proto
//! JSON name in field order, repeated fields as their elements repeated (absent when empty),
//! nested messages as nested elements, no attributes, no namespaces. quick-xml writes `<`, `>`
//! and `&` escaped and a carriage return as `&#13;` (so XML's line-end normalisation keeps it),
//! an empty string as `<e/>`, and reads element text untrimmed.
//!
//! quick-xml's serde binding covers most of the mapping; a small adapter in this file does what
//! it cannot know from serde alone, for every record type alike (nothing per dataset):
//! - a repeated field absent from an element reads as empty (serde derive would call it missing),
//!   while every other absent field is still a missing-field error, as in json and cbor;
//! - a record whose serde form is a plain sequence (`MatrixRow`, serde-transparent over its one
//!   repeated field) is written and read as the message it is, its items named by that field's
//!   proto JSON name, found in the contract's descriptors: `<records><cells>..</cells>..</records>`;
//! - `deserialize_any` (the model asks it of double fields, to take an integer from JavaScript
//!   writers) reads the element's text, as an f64 when it parses as one: XML text has no type;
//! - the root must be `<payload>` and nothing but whitespace, comments or processing instructions
//!   may follow it (quick-xml ignores the root's name and stops after the root).
//!
//! Unknown elements, attributes and text inside a message are refused, as the Java and browser
//! codecs refuse them (a matrix row holds only its items). quick-xml reads a number's text with surrounding whitespace collapsed, as XML
//! Schema does for numeric types; strings keep theirs. No tree mode (no
//! generic document in quick-xml's serde), no lazy mode (finding a field means parsing up to it).
use crate::payload::{decode_typed, with_records, DeFn};
use crate::{Codec, CodecError, CodecMeta};
use codecbench_datasets::Records;
use serde::de::{self, DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::marker::PhantomData;
use std::sync::OnceLock;
use write::PayloadSer;

mod write;

pub struct Xml;

const ROOT: &str = "payload";
const RECORDS: &str = "records";

impl Codec for Xml {
    /// quick-xml's serde writes a map's keys as element names, and cannot read a oneof through
    /// serde's flatten buffer (XML text has no types): both refused rather than mis-written.
    fn refusal(&self, dataset: &codecbench_datasets::DatasetSpec) -> Option<String> {
        crate::serde_refusal(self.meta().id, dataset, &["map", "oneof"])
    }

    fn meta(&self) -> &'static CodecMeta {
        CodecMeta::of("xml")
    }

    fn encode(&self, records: &Records) -> Result<Vec<u8>, CodecError> {
        let item = row_item_name(records.dataset());
        let mut out = String::new();
        with_records!(records, r => quick_xml::se::to_writer_with_root(&mut out, ROOT, &PayloadSer { records: r, item }))
            .map_err(CodecError::from_display)?;
        Ok(out.into_bytes())
    }

    fn decode(&self, dataset: &str, bytes: &[u8]) -> Result<Records, CodecError> {
        decode_typed(dataset, bytes, FromSlice { item: row_item_name(dataset) })
    }
}

/// The typed decode of one payload: UTF-8 check, then `<payload>` and nothing after it.
struct FromSlice {
    item: Option<&'static str>,
}

impl DeFn<CodecError> for FromSlice {
    fn call<T: de::DeserializeOwned>(&self, bytes: &[u8]) -> Result<Vec<T>, CodecError> {
        let text = std::str::from_utf8(bytes).map_err(|e| CodecError(format!("the payload is not UTF-8: {e}")))?;
        let mut de = quick_xml::de::Deserializer::from_str(text);
        // Top-level elements are a sequence to quick-xml (it reads concatenated documents), which
        // lets the document visitor see whether anything follows the root.
        (&mut de).deserialize_seq(Document { item: self.item, records: PhantomData }).map_err(|e| {
            CodecError(format!("{e} (read up to byte {})", de.get_ref().get_ref().buffer_position()))
        })
    }
}

// ---- names from the contract's descriptors ---------------------------------------------------

/// For a dataset whose record message has exactly one field, that field's proto JSON name: the
/// name of a sequence-form record's items. Read from the descriptors of `proto/` on the first
/// call (the worker's verification, before anything is timed); a timed call only scans this list.
fn row_item_name(dataset: &str) -> Option<&'static str> {
    static NAMES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            use prost::Message;
            let Ok(set) = prost_types::FileDescriptorSet::decode(codecbench_proto::FILE_DESCRIPTOR_SET) else {
                return Vec::new();
            };
            let messages: Vec<(String, &prost_types::DescriptorProto)> = set
                .file
                .iter()
                .flat_map(|f| f.message_type.iter().map(move |m| (format!(".{}.{}", f.package(), m.name()), m)))
                .collect();
            let mut names = Vec::new();
            for (_, list) in messages.iter().filter(|(_, m)| m.name().ends_with("Dataset")) {
                let dataset = list.name().trim_end_matches("Dataset").to_lowercase();
                let Some(records) = list.field.iter().find(|f| f.name() == RECORDS) else { continue };
                let Some((_, record)) = messages.iter().find(|(full, _)| full == records.type_name()) else { continue };
                if let [only] = &record.field[..] {
                    names.push((dataset, only.json_name().to_string()));
                }
            }
            names
        })
        .iter()
        .find(|(d, _)| d == dataset)
        .map(|(_, name)| name.as_str())
}

// ---- decode: the document and the payload ----------------------------------------------------

/// The top-level sequence quick-xml sees: the root, then nothing.
struct Document<T> {
    item: Option<&'static str>,
    records: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Document<T> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an XML document with the root element <{ROOT}>")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let records = seq
            .next_element_seed(Root { item: self.item, records: PhantomData })?
            .ok_or_else(|| A::Error::custom(format!("no root element: an empty document, not <{ROOT}>")))?;
        match seq.next_element_seed(Trailing)? {
            None => Ok(records),
            Some(never) => match never {},
        }
    }
}

/// Anything after the root element is an error.
struct Trailing;
enum Never {}
impl<'de> DeserializeSeed<'de> for Trailing {
    type Value = Never;
    fn deserialize<D: Deserializer<'de>>(self, _: D) -> Result<Never, D::Error> {
        Err(D::Error::custom(format!("content after the root element </{ROOT}>")))
    }
}

/// The root element, read as a one-variant enum so that its name is checked.
struct Root<T> {
    item: Option<&'static str>,
    records: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for Root<T> {
    type Value = Vec<T>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<T>, D::Error> {
        d.deserialize_enum("", &[ROOT], self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Root<T> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "the root element <{ROOT}>")
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Vec<T>, A::Error> {
        use de::VariantAccess;
        let ((), body) = data.variant_seed(RootName)?;
        body.newtype_variant_seed(PayloadSeed { item: self.item, records: PhantomData })
    }
}

/// Accepts only the root's name (quick-xml offers text before the root as `$text`).
struct RootName;
impl<'de> DeserializeSeed<'de> for RootName {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_identifier(self)
    }
}
impl Visitor<'_> for RootName {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "the root element <{ROOT}>")
    }
    fn visit_str<E: de::Error>(self, name: &str) -> Result<(), E> {
        match name {
            ROOT => Ok(()),
            "$text" => Err(E::custom(format!("text where the root element <{ROOT}> belongs"))),
            other => Err(E::custom(format!("the root element is <{other}>, not <{ROOT}>"))),
        }
    }
}

/// `<payload>`: its `<records>` elements (none when there are no records).
struct PayloadSeed<T> {
    item: Option<&'static str>,
    records: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for PayloadSeed<T> {
    type Value = Vec<T>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<T>, D::Error> {
        d.deserialize_struct(ROOT, &[RECORDS], self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for PayloadSeed<T> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "<{ROOT}> holding <{RECORDS}> elements")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<T>, A::Error> {
        let mut records = None;
        while let Some(is_records) = map.next_key_seed(NameIs(RECORDS))? {
            if !is_records {
                map.next_value::<IgnoredAny>()?;
            } else if records.is_some() {
                return Err(A::Error::custom(format!("duplicate field `{RECORDS}` (<{RECORDS}> elements must follow each other)")));
            } else {
                records = Some(map.next_value_seed(RecordsSeed { item: self.item, records: PhantomData })?);
            }
        }
        Ok(records.unwrap_or_default())
    }
}

/// Whether a key is the given name.
struct NameIs(&'static str);
impl<'de> DeserializeSeed<'de> for NameIs {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_identifier(self)
    }
}
impl Visitor<'_> for NameIs {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an element name")
    }
    fn visit_str<E: de::Error>(self, name: &str) -> Result<bool, E> {
        Ok(name == self.0)
    }
}

/// The `<records>` elements, each a record through the adapter; errors name the record.
struct RecordsSeed<T> {
    item: Option<&'static str>,
    records: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for RecordsSeed<T> {
    type Value = Vec<T>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<T>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for RecordsSeed<T> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "<{RECORDS}> elements")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut out = Vec::new();
        loop {
            let seed = Seed { seed: PhantomData::<T>, item: self.item };
            match seq.next_element_seed(seed) {
                Ok(Some(record)) => out.push(record),
                Ok(None) => return Ok(out),
                Err(e) => return Err(A::Error::custom(format_args!("record {}: {e}", out.len()))),
            }
        }
    }
}

// ---- decode: the adapter over quick-xml's deserializer -----------------------------------------

/// quick-xml's deserializer for one value, with the mapping rules of the module comment.
/// `item` is set for a record only: the name of a sequence-form record's items.
struct Mapped<D> {
    de: D,
    item: Option<&'static str>,
}

/// A seed whose value is read through [`Mapped`].
struct Seed<S> {
    seed: S,
    item: Option<&'static str>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Mapped { de: d, item: self.item })
    }
}

macro_rules! forward_de {
    ($($method:ident),*) => {
        $(fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
            self.de.$method(v)
        })*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Mapped<D> {
    type Error = D::Error;

    /// XML text carries no type: an element's text, as an f64 when it spells a number (the
    /// model's double fields ask `any` so that binary formats may hand them an integer).
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_str(TextOrNumber(v))
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_option(Adapt { v, fields: &[] })
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_newtype_struct(name, Adapt { v, fields: &[] })
    }
    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        match self.item {
            Some(item) => self.de.deserialize_map(Items { v, item }),
            None => self.de.deserialize_seq(Adapt { v, fields: &[] }),
        }
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_tuple(len, Adapt { v, fields: &[] })
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(self, name: &'static str, len: usize, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_tuple_struct(name, len, Adapt { v, fields: &[] })
    }
    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_map(Adapt { v, fields: &[] })
    }
    fn deserialize_struct<V: Visitor<'de>>(self, name: &'static str, fields: &'static [&'static str], v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_struct(name, fields, Adapt { v, fields })
    }
    /// The model has no enums; an enum's content is read by quick-xml as it is.
    fn deserialize_enum<V: Visitor<'de>>(self, name: &'static str, variants: &'static [&'static str], v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_enum(name, variants, v)
    }
    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }

    forward_de!(
        deserialize_bool, deserialize_i8, deserialize_i16, deserialize_i32, deserialize_i64, deserialize_i128,
        deserialize_u8, deserialize_u16, deserialize_u32, deserialize_u64, deserialize_u128, deserialize_f32,
        deserialize_f64, deserialize_char, deserialize_str, deserialize_string, deserialize_bytes,
        deserialize_byte_buf, deserialize_unit, deserialize_identifier, deserialize_ignored_any
    );
    fn deserialize_unit_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> Result<V::Value, D::Error> {
        self.de.deserialize_unit_struct(name, v)
    }
}

/// An element's text for `deserialize_any`: an f64 when it parses as one, else the text.
struct TextOrNumber<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for TextOrNumber<V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.expecting(f)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<V::Value, E> {
        match s.parse::<f64>() {
            Ok(n) => self.0.visit_f64(n),
            Err(_) => self.0.visit_str(s),
        }
    }
}

/// Wraps what a visitor is handed (maps, sequences, inner values) so the adapter applies at
/// every depth. `fields` are the struct's fields when the visitor reads a struct.
struct Adapt<V> {
    v: V,
    fields: &'static [&'static str],
}

macro_rules! forward_visit {
    ($($method:ident($($ty:ty)?)),*) => {
        $(fn $method<E: de::Error>(self $(, x: $ty)?) -> Result<V::Value, E> {
            self.v.$method($(forward_visit!(@arg x $ty))?)
        })*
    };
    (@arg $x:ident $ty:ty) => { $x };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Adapt<V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.v.expecting(f)
    }
    forward_visit!(
        visit_bool(bool), visit_i8(i8), visit_i16(i16), visit_i32(i32), visit_i64(i64), visit_i128(i128),
        visit_u8(u8), visit_u16(u16), visit_u32(u32), visit_u64(u64), visit_u128(u128), visit_f32(f32),
        visit_f64(f64), visit_char(char), visit_str(&str), visit_borrowed_str(&'de str), visit_string(String),
        visit_bytes(&[u8]), visit_borrowed_bytes(&'de [u8]), visit_byte_buf(Vec<u8>), visit_none(), visit_unit()
    );
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.v.visit_some(Mapped { de: d, item: None })
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.v.visit_newtype_struct(Mapped { de: d, item: None })
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.v.visit_seq(Elements(seq))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.v.visit_map(Fields { map, fields: self.fields, seen: 0, current: None, ended: false, next_absent: 0, absent: false })
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.v.visit_enum(data)
    }
}

/// A sequence's elements, each through the adapter.
struct Elements<A>(A);

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Elements<A> {
    type Error = A::Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Seed { seed, item: None })
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// A struct's fields as quick-xml reads them; once the element ends, each field that did not
/// appear is offered once more with an [`Absent`] value: a repeated field reads it as empty, any
/// other field fails as missing. Values' errors are prefixed with their field's name.
struct Fields<A> {
    map: A,
    fields: &'static [&'static str],
    /// Fields that appeared, by index in `fields` (the first 128; past that a field is never
    /// offered as absent, so a missing one fails as serde derive reports it).
    seen: u128,
    /// The field whose value is read next, when it is one of `fields`.
    current: Option<&'static str>,
    ended: bool,
    next_absent: usize,
    /// The value to read next is an absent field's.
    absent: bool,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Fields<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        let mut seed = Some(seed);
        if !self.ended {
            let mut hit = None;
            let key = self.map.next_key_seed(KeySeed { seed: &mut seed, fields: self.fields, hit: &mut hit })?;
            if key.is_some() {
                self.current = hit.map(|i| self.fields[i]);
                if let Some(i) = hit.filter(|&i| i < 128) {
                    self.seen |= 1 << i;
                }
                return Ok(key);
            }
            self.ended = true;
        }
        let Some(seed) = seed else { return Ok(None) };
        while self.next_absent < self.fields.len().min(128) {
            let i = self.next_absent;
            self.next_absent += 1;
            if self.seen & (1 << i) == 0 {
                self.current = Some(self.fields[i]);
                self.absent = true;
                return seed.deserialize(de::value::BorrowedStrDeserializer::new(self.fields[i])).map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        if std::mem::take(&mut self.absent) {
            return seed.deserialize(Absent { field: self.current.unwrap_or_default(), error: PhantomData });
        }
        let current = self.current;
        self.map.next_value_seed(Seed { seed, item: None }).map_err(|e| match current {
            Some(field) => A::Error::custom(format_args!("{field}: {e}")),
            None => e,
        })
    }
}

/// A key seed that notes which of `fields` the key names, and stays unused (in `seed`) when the
/// element has no more keys.
struct KeySeed<'a, K> {
    seed: &'a mut Option<K>,
    fields: &'static [&'static str],
    hit: &'a mut Option<usize>,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, K> {
    type Value = K::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<K::Value, D::Error> {
        let seed = self.seed.take().ok_or_else(|| D::Error::custom("a key read twice"))?;
        let key = d.deserialize_identifier(NoteName { fields: self.fields, hit: self.hit })?;
        // Within a record or nested message (the only structs: a proto message has fields), a
        // name that is none of its fields is refused, as Jackson and the browser's reader do:
        // quick-xml names an attribute `@name` and text `$text`/`$value`.
        if self.hit.is_none() && !self.fields.is_empty() {
            return Err(D::Error::custom(match key.as_ref() {
                k if k.starts_with('@') => format!("an attribute `{}` (the wire form has none)", &k[1..]),
                "$text" | "$value" => "text where elements belong".to_string(),
                k => format!("unknown element <{k}> (not a field of this message)"),
            }));
        }
        seed.deserialize(de::value::StrDeserializer::<D::Error>::new(key.as_ref()))
    }
}

/// An element name, borrowed from the payload where it can be.
struct NoteName<'a> {
    fields: &'static [&'static str],
    hit: &'a mut Option<usize>,
}

impl<'de> Visitor<'de> for NoteName<'_> {
    type Value = std::borrow::Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an element name")
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        *self.hit = self.fields.iter().position(|f| *f == s);
        Ok(std::borrow::Cow::Borrowed(s))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        *self.hit = self.fields.iter().position(|f| *f == s);
        Ok(std::borrow::Cow::Owned(s.to_string()))
    }
}

/// The value of a field absent from its element: an empty sequence for a repeated field, `None`
/// for an optional message (as serde derive has it), a missing-field error for anything else.
struct Absent<E> {
    field: &'static str,
    error: PhantomData<E>,
}

impl<'de, E: de::Error> Deserializer<'de> for Absent<E> {
    type Error = E;
    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.field))
    }
    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        v.visit_seq(de::value::SeqDeserializer::new(std::iter::empty::<()>()))
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        v.visit_none()
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct newtype_struct tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// A sequence-form record's element: its `<item>` children are the values, in order.
struct Items<V> {
    v: V,
    item: &'static str,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Items<V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a record of <{}> elements", self.item)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<V::Value, A::Error> {
        let unexpected = |item| A::Error::custom(format!("content other than <{item}> elements in a record of <{item}> elements"));
        let value = match map.next_key_seed(NameIs(self.item))? {
            // The element has ended: asking for another key would read past it.
            None => return self.v.visit_seq(de::value::SeqDeserializer::new(std::iter::empty::<()>())),
            Some(false) => return Err(unexpected(self.item)),
            Some(true) => map.next_value_seed(ItemsSeed(self.v))?,
        };
        match map.next_key_seed(NameIs(self.item))? {
            None => Ok(value),
            Some(true) => Err(A::Error::custom(format!("<{}> elements must follow each other", self.item))),
            Some(false) => Err(unexpected(self.item)),
        }
    }
}

/// The run of `<item>` elements, as the record's sequence.
struct ItemsSeed<V>(V);
impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for ItemsSeed<V> {
    type Value = V::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        d.deserialize_seq(Adapt { v: self.0, fields: &[] })
    }
}


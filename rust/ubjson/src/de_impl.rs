//! Decoding: a self-describing serde deserializer reading every Draft 12 form, bounded.
use crate::Error;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};


pub fn from_slice<'de, T: serde::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, Error> {
    let mut de = Deserializer { input: bytes, pos: 0, depth: 0, free_elements: MAX_FREE_ELEMENTS };
    let value = T::deserialize(&mut de)?;
    de.skip_noops();
    if de.pos != bytes.len() {
        return Err(Error(format!("{} bytes after the value at offset {}", bytes.len() - de.pos, de.pos)));
    }
    Ok(value)
}

/// Containers nested deeper than this are refused instead of exhausting the stack.
const MAX_DEPTH: usize = 128;

/// Elements of `$Z`/`$T`/`$F` containers (no payload: the type says it all) one input may declare.
/// Draft 12 lets 14 bytes declare 2^63 of them, which looped (and in tree mode allocated) until
/// memory ran out (found by tests/fuzz.rs); every other element takes input bytes, so this bounds
/// a decode's work and memory by the input's size. No dataset has such containers.
const MAX_FREE_ELEMENTS: usize = 1 << 16;

pub struct Deserializer<'de> {
    input: &'de [u8],
    pos: usize,
    depth: usize,
    /// What is left of [`MAX_FREE_ELEMENTS`].
    free_elements: usize,
}

impl<'de> Deserializer<'de> {
    fn eof(&self, what: &str) -> Error {
        Error(format!("unexpected end of input reading {what} at offset {}", self.pos))
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&'de [u8], Error> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.input.len()).ok_or_else(|| self.eof(what))?;
        let s = &self.input[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn byte(&mut self, what: &str) -> Result<u8, Error> {
        Ok(self.take(1, what)?[0])
    }
    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }
    fn skip_noops(&mut self) {
        while self.peek() == Some(b'N') {
            self.pos += 1;
        }
    }
    fn marker(&mut self, what: &str) -> Result<u8, Error> {
        self.skip_noops();
        self.byte(what)
    }
    fn int_of(&mut self, marker: u8) -> Result<Option<i64>, Error> {
        Ok(Some(match marker {
            b'i' => self.byte("int8")? as i8 as i64,
            b'U' => self.byte("uint8")? as i64,
            b'I' => i16::from_be_bytes(self.take(2, "int16")?.try_into().unwrap()) as i64,
            b'l' => i32::from_be_bytes(self.take(4, "int32")?.try_into().unwrap()) as i64,
            b'L' => i64::from_be_bytes(self.take(8, "int64")?.try_into().unwrap()),
            _ => return Ok(None),
        }))
    }
    /// A length or count: an integer value, never negative.
    fn length(&mut self, what: &str) -> Result<usize, Error> {
        let at = self.pos;
        let m = self.marker(what)?;
        let n = self.int_of(m)?.ok_or_else(|| Error(format!("{what} at offset {at} has marker {:?}, not an integer", m as char)))?;
        let n = usize::try_from(n).map_err(|_| Error(format!("negative {what} {n} at offset {at}")))?;
        if n > self.input.len() - self.pos && what != "count" {
            return Err(Error(format!("{what} {n} at offset {at} runs past the end of the input")));
        }
        Ok(n)
    }
    fn str_body(&mut self, what: &str) -> Result<&'de str, Error> {
        let n = self.length(what)?;
        let at = self.pos;
        std::str::from_utf8(self.take(n, what)?).map_err(|e| Error(format!("{what} at offset {at} is not UTF-8: {e}")))
    }
    /// After `[` or `{`: an optional `$` type and `#` count.
    fn container_header(&mut self) -> Result<(Option<u8>, Option<usize>), Error> {
        let mut ty = None;
        if self.peek() == Some(b'$') {
            self.pos += 1;
            ty = Some(self.byte("container type")?);
            if self.peek() != Some(b'#') {
                return Err(Error(format!("container with a $ type needs a # count at offset {}", self.pos)));
            }
        }
        let mut count = None;
        if self.peek() == Some(b'#') {
            self.pos += 1;
            let n = self.length("count")?;
            // Every element takes at least a byte unless its type carries no payload (Z, T, F, N).
            if matches!(ty, Some(b'Z' | b'T' | b'F' | b'N')) {
                self.free_elements = self.free_elements.checked_sub(n).ok_or_else(|| {
                    Error(format!("count {n} at offset {} takes the input past {MAX_FREE_ELEMENTS} payload-less elements", self.pos))
                })?;
            } else if n > self.input.len() - self.pos {
                return Err(Error(format!("count {n} at offset {} is more than the input holds", self.pos)));
            }
            count = Some(n);
        }
        Ok((ty, count))
    }
    fn value<V: Visitor<'de>>(&mut self, marker: u8, visitor: V) -> Result<V::Value, Error> {
        if let Some(v) = self.int_of(marker)? {
            return visitor.visit_i64(v);
        }
        match marker {
            b'Z' => visitor.visit_unit(),
            b'T' => visitor.visit_bool(true),
            b'F' => visitor.visit_bool(false),
            b'd' => visitor.visit_f32(f32::from_be_bytes(self.take(4, "float32")?.try_into().unwrap())),
            b'D' => visitor.visit_f64(f64::from_be_bytes(self.take(8, "float64")?.try_into().unwrap())),
            b'C' => {
                let b = self.byte("char")?;
                if !b.is_ascii() {
                    return Err(Error(format!("char {b:#x} at offset {} is not ASCII", self.pos - 1)));
                }
                visitor.visit_char(b as char)
            }
            b'S' => visitor.visit_borrowed_str(self.str_body("string length")?),
            b'H' => visitor.visit_borrowed_str(self.str_body("high-precision number length")?),
            b'[' | b'{' => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err(Error(format!("containers nested deeper than {MAX_DEPTH}")));
                }
                let (ty, count) = self.container_header()?;
                if let (b'[', Some(b'U'), Some(n)) = (marker, ty, count) {
                    // An optimized array of uint8 is UBJSON's binary: a bytes field's form
                    // (proto/README.md), handed over as bytes so that it survives serde's content
                    // buffer (a oneof's flatten) as bytes; a sequence visitor is not offered it.
                    let bytes = self.take(n, "uint8 array")?;
                    self.depth -= 1;
                    return visitor.visit_borrowed_bytes(bytes);
                }
                let access = Access { de: &mut *self, ty, left: count };
                let v = if marker == b'[' { visitor.visit_seq(access)? } else { visitor.visit_map(access)? };
                self.depth -= 1;
                Ok(v)
            }
            other => Err(Error(format!("unknown UBJSON marker {:?} ({other:#04x}) at offset {}", other as char, self.pos - 1))),
        }
    }
}

/// Elements of an array or object, sized (`#`) or ended by `]` / `}`.
struct Access<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    ty: Option<u8>,
    left: Option<usize>,
}

impl<'de> Access<'_, 'de> {
    /// Whether another element follows; consumes the closing marker of an unsized container.
    fn more(&mut self, close: u8) -> Result<bool, Error> {
        match &mut self.left {
            Some(0) => Ok(false),
            Some(n) => {
                *n -= 1;
                Ok(true)
            }
            None => {
                self.de.skip_noops();
                match self.de.peek() {
                    Some(b) if b == close => {
                        self.de.pos += 1;
                        Ok(false)
                    }
                    Some(_) => Ok(true),
                    None => Err(self.de.eof("a container")),
                }
            }
        }
    }
    fn element<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.ty {
            Some(ty) => seed.deserialize(Typed { de: &mut *self.de, marker: ty }),
            None => seed.deserialize(&mut *self.de),
        }
    }
}

impl<'de> SeqAccess<'de> for Access<'_, 'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        if !self.more(b']')? {
            return Ok(None);
        }
        self.element(seed).map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        self.left
    }
}

impl<'de> MapAccess<'de> for Access<'_, 'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        if !self.more(b'}')? {
            return Ok(None);
        }
        let key = self.de.str_body("key length")?;
        seed.deserialize(key.into_deserializer()).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        self.element(seed)
    }
    fn size_hint(&self) -> Option<usize> {
        self.left
    }
}

/// An element of a `$`-typed container: its marker was given once in the header.
struct Typed<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    marker: u8,
}

impl<'de> de::Deserializer<'de> for Typed<'_, 'de> {
    type Error = Error;
    fn is_human_readable(&self) -> bool {
        false
    }
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.de.value(self.marker, visitor)
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.marker == b'Z' { visitor.visit_none() } else { visitor.visit_some(self) }
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;
    fn is_human_readable(&self) -> bool {
        false
    }
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let m = self.marker("a value")?;
        self.value(m, visitor)
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.skip_noops();
        if self.peek() == Some(b'Z') {
            self.pos += 1;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_enum<V: Visitor<'de>>(self, _: &'static str, _: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        // Unit variants only (written as strings); the datasets have no other kind.
        let m = self.marker("an enum")?;
        if m != b'S' {
            return Err(Error(format!("an enum must be a string, found marker {:?}", m as char)));
        }
        visitor.visit_enum(self.str_body("string length")?.into_deserializer())
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

//! A resource's property object (`inputs`, `outputs`) kept as its compact JSON text, parsed
//! when something asks for its values. A stored version is mostly these objects, and parsed into
//! order-keeping maps they take several times their text: a 100,000-resource stack held as maps
//! was most of what a server kept in memory for it.

use serde::de::{self, Deserialize, Deserializer, Unexpected};
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A JSON object's text as serde_json writes the value (see [`compacted`]), written back as is.
#[derive(Clone)]
pub struct Properties(Box<RawValue>);

impl Properties {
    /// The values, parsed (each call parses the text again: callers keep what they need).
    pub fn to_map(&self) -> Map<String, Value> {
        serde_json::from_str(self.0.get()).expect("properties are a JSON object, checked when read")
    }

    /// The compact JSON text.
    pub fn as_json(&self) -> &str {
        self.0.get()
    }

    /// The bytes held: the text, and the box pointing at it.
    pub fn held_bytes(&self) -> usize {
        self.0.get().len() + std::mem::size_of::<Self>()
    }

    pub fn is_empty(&self) -> bool {
        self.0.get() == "{}"
    }

    /// Whether the text holds `needle` anywhere (a cheap test before parsing, such as for the
    /// secret signature).
    pub fn mentions(&self, needle: &str) -> bool {
        self.0.get().contains(needle)
    }
}

impl std::fmt::Debug for Properties {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.get())
    }
}

/// Equal values, whatever their spelling (`1.0` and `1.00` are one number): the text when it is
/// the same, the parsed maps otherwise.
impl PartialEq for Properties {
    fn eq(&self, other: &Properties) -> bool {
        self.0.get() == other.0.get() || self.to_map() == other.to_map()
    }
}

impl Serialize for Properties {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Properties {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        if !raw.get().starts_with('{') {
            return Err(de::Error::invalid_type(
                Unexpected::Other(&format!("`{}`", shortened(raw.get()))),
                &"an object of properties",
            ));
        }
        Ok(match compacted(raw.get()).map_err(de::Error::custom)? {
            None => Properties(raw),
            Some(compact) => Properties(RawValue::from_string(compact).map_err(de::Error::custom)?),
        })
    }
}

fn shortened(text: &str) -> &str {
    match text.char_indices().nth(40) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// `text` (valid JSON) as serde_json writes the same value, or `None` when it already is:
/// compact (no white space between tokens), strings escaped only where JSON must (Go's encoder,
/// which wrote most states, escapes `<`, `>` and `&` as `\u003c`…), numbers as they print. A
/// version's stored text is then the export Ferry writes, whichever way the state came in.
/// An escape no JSON value holds (a lone UTF-16 surrogate, which the raw text's check lets
/// through) is an error.
fn compacted(text: &str) -> Result<Option<String>, serde_json::Error> {
    let bytes = text.as_bytes();
    let (mut in_string, mut escaped) = (false, false);
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            if escaped {
                escaped = false;
                if matches!(b, b'u' | b'/') {
                    return rewritten(text).map(Some);
                }
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
            out.get_or_insert_with(|| bytes[..i].to_vec());
            i += 1;
            continue;
        } else if b == b'-' || b.is_ascii_digit() {
            let end = bytes[i..]
                .iter()
                .position(|c| !matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                .map_or(bytes.len(), |n| i + n);
            if !printed_as_is(&text[i..end]) {
                return rewritten(text).map(Some);
            }
            if let Some(out) = out.as_mut() {
                out.extend_from_slice(&bytes[i..end]);
            }
            i = end;
            continue;
        }
        if let Some(out) = out.as_mut() {
            out.push(b);
        }
        i += 1;
    }
    Ok(out.map(|o| String::from_utf8(o).expect("only ASCII white space was taken out")))
}

/// Whether serde_json writes the number `token` back as the same text.
fn printed_as_is(token: &str) -> bool {
    if token.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        token
            .parse::<f64>()
            .ok()
            .and_then(|f| serde_json::to_string(&f).ok())
            .is_some_and(|printed| printed == token)
    } else {
        token != "-0" && (token.parse::<u64>().is_ok() || token.parse::<i64>().is_ok())
    }
}

fn rewritten(text: &str) -> Result<String, serde_json::Error> {
    serde_json::from_str::<Value>(text).map(|v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// Found by the `state_file` fuzz target: serde_json's raw text check lets a lone surrogate
    /// escape through, which no JSON value holds; reading it panicked.
    #[test]
    fn a_lone_surrogate_escape_is_an_error_not_a_panic() {
        for text in
            [r#"{"a": "\ud800"}"#, r#"{"a": "x\udc00y", "b": 1}"#, "{ \"a\" : \"\\ud83d\" }"]
        {
            let err = serde_json::from_str::<Properties>(text).expect_err(text);
            assert!(err.to_string().contains("escape"), "{text}: {err}");
        }
        // A pair is a character, and reads.
        let pair: Properties = serde_json::from_str(r#"{"a": "\ud83d\ude00"}"#).unwrap();
        assert_eq!(Value::Object(pair.to_map()), json!({"a": "\u{1F600}"}));
    }

    #[test]
    fn read_from_text_or_a_value_and_written_back_compact() {
        let from_text: Properties =
            serde_json::from_str("{ \"a\" : [1, -2.5, \"x y\\\" z\"],\n  \"b\": {}\n}").unwrap();
        assert_eq!(from_text.as_json(), r#"{"a":[1,-2.5,"x y\" z"],"b":{}}"#);
        let from_value: Properties =
            serde_json::from_value(json!({"a": [1, -2.5, "x y\" z"], "b": {}})).unwrap();
        assert_eq!(from_text, from_value);
        assert_eq!(from_value.as_json(), from_text.as_json());
        // Spelled as Go writes it, or with numbers that print otherwise: written as serde_json
        // writes the same value, as a value read any other way would be.
        for (read, written) in [
            (r#"{"p": "a \u003c b \u0026 c\/d"}"#, r#"{"p":"a < b & c/d"}"#),
            (
                r#"{"n": [2.50, 1e3, -0, 18446744073709551616, 7, -7, 0.5]}"#,
                r#"{"n":[2.5,1000.0,-0.0,1.8446744073709552e+19,7,-7,0.5]}"#,
            ),
        ] {
            let p: Properties = serde_json::from_str(read).unwrap();
            assert_eq!(p.as_json(), written);
            assert_eq!(p.as_json(), serde_json::from_str::<Value>(read).unwrap().to_string());
        }
        assert_eq!(serde_json::to_string(&from_text).unwrap(), from_text.as_json());
        assert!(serde_json::from_str::<Properties>("{}").unwrap().is_empty());
    }

    #[test]
    fn anything_but_an_object_is_refused() {
        for bad in ["[1]", "\"x\"", "3"] {
            let e = serde_json::from_str::<Properties>(bad).unwrap_err().to_string();
            assert!(e.contains("expected an object of properties"), "{bad}: {e}");
        }
        assert!(serde_json::from_value::<Properties>(json!("x")).is_err());
    }

    proptest! {
        /// Taking the white space out never changes the values.
        #[test]
        fn compacting_keeps_the_values(keys in proptest::collection::vec("[ a-z\"\\\\\n]{0,6}", 0..5), n in 0i64..1000) {
            let map: Map<String, Value> = keys.iter().map(|k| (k.clone(), json!({"n": n, "s": k, "l": [n, k]}))).collect();
            let pretty = serde_json::to_string_pretty(&map).unwrap();
            let read: Properties = serde_json::from_str(&pretty).unwrap();
            prop_assert_eq!(read.to_map(), map.clone());
            prop_assert_eq!(read.as_json(), serde_json::to_string(&map).unwrap());
        }
    }
}

//! JSON as the store keeps it: zstd-compressed. A stack version's export and a preview's plan
//! and sealed states are JSON that compresses ten to thirty times (a generated 100,000-resource
//! stack: 57 MB to 2 MB in 40 ms), and SQLite copies a value twice while writing it (its bound
//! copy and its record), which for a 100,000-resource stack's 55 MB of text was 125 MB held
//! during every upload and commit, and for a 10,000-import preview 16 MB written per preview.

use serde::Serialize;

/// zstd's own default: its speed is well past what a commit's or a preview's other work takes.
pub(crate) const LEVEL: i32 = 3;

/// How much JSON [`PackedJson::write`] gathers before handing it to the encoder.
const WRITE_BLOCK: usize = 128 << 10;

/// The first bytes of every zstd frame, by which packed bytes are told from JSON text (which
/// never starts with byte 0x28).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// JSON text, compressed for the store. Made by the caller (on a thread where CPU work
/// belongs), so the text can be let go before the write.
pub struct PackedJson(Vec<u8>);

impl PackedJson {
    pub fn pack(json: &str) -> PackedJson {
        PackedJson(
            zstd::bulk::compress(json.as_bytes(), LEVEL)
                .expect("compressing into memory cannot fail"),
        )
    }

    /// A value's JSON, packed as it is written: the text is never held whole. serde_json writes
    /// a few bytes at a time, and each write into the encoder costs a call through zstd's
    /// streaming API (half a 10,000-import plan's packing time went there, `perf`, 2026-11-26):
    /// the writes are gathered into blocks first.
    pub fn write(value: &impl Serialize) -> Result<PackedJson, serde_json::Error> {
        let encoder =
            zstd::Encoder::new(Vec::new(), LEVEL).expect("a zstd encoder into memory starts");
        let mut blocks = std::io::BufWriter::with_capacity(WRITE_BLOCK, encoder);
        serde_json::to_writer(&mut blocks, value)?;
        let encoder = blocks.into_inner().map_err(|e| serde_json::Error::io(e.into_error()))?;
        Ok(PackedJson(encoder.finish().expect("compressing into memory cannot fail")))
    }

    /// Frames packed by [`crate::packed_runs::RunPacker`].
    pub(crate) fn from_frames(bytes: Vec<u8>) -> PackedJson {
        PackedJson(bytes)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// Whether `bytes` are packed JSON (as [`PackedJson::bytes`] gave them), not JSON text.
    pub fn is_packed(bytes: &[u8]) -> bool {
        bytes.starts_with(&ZSTD_MAGIC)
    }

    /// The JSON text `bytes` were packed from; the error says why they do not unpack.
    pub fn unpack(bytes: &[u8]) -> Result<Vec<u8>, String> {
        zstd::stream::decode_all(bytes).map_err(|e| format!("it does not decompress: {e}"))
    }
}

/// The JSON of a row that holds it one way: `packed` since the row's kind was compressed,
/// `text` in rows stored before. The error says why it cannot be read.
pub(crate) fn stored_json(packed: Option<Vec<u8>>, text: Option<String>) -> Result<String, String> {
    match (packed, text) {
        (Some(bytes), _) => String::from_utf8(PackedJson::unpack(&bytes)?)
            .map_err(|e| format!("it is not UTF-8 text: {e}")),
        (None, Some(text)) => Ok(text),
        (None, None) => Err("it holds nothing".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn json_unpacks_to_the_text_packed(text in ".{0,2000}") {
            prop_assert_eq!(stored_json(Some(PackedJson::pack(&text).0), None).unwrap(), text);
        }

        #[test]
        fn a_value_written_packed_unpacks_to_its_json(values in proptest::collection::btree_map(".{0,20}", any::<i64>(), 0..50)) {
            let packed = PackedJson::write(&values).unwrap();
            prop_assert!(PackedJson::is_packed(packed.bytes()));
            prop_assert_eq!(PackedJson::unpack(packed.bytes()).unwrap(), serde_json::to_vec(&values).unwrap());
        }
    }

    #[test]
    fn json_text_is_not_taken_for_packed() {
        for text in ["{}", "[]", "\"x\"", "1", "null", " {}"] {
            assert!(!PackedJson::is_packed(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn damaged_bytes_say_why() {
        let err = stored_json(Some(b"not zstd".to_vec()), None).unwrap_err();
        assert!(err.contains("does not decompress"), "{err}");
        assert_eq!(stored_json(None, None).unwrap_err(), "it holds nothing");
    }
}

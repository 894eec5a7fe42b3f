//! A stack version's export as the store keeps it: zstd-compressed. An export is JSON that
//! compresses ten to thirty times (a generated 100,000-resource stack: 57 MB to 2 MB in 40 ms),
//! and SQLite copies a value twice while writing it (its bound copy and its record), which for
//! a 100,000-resource stack's 55 MB of text was 125 MB held during every upload and commit.

use crate::StoreError;

/// zstd's own default: its speed is well past what a commit's other work takes.
const LEVEL: i32 = 3;

/// An export, compressed for the store. Made by the caller (on a thread where CPU work
/// belongs), so the text can be let go before the write.
pub struct PackedExport(Vec<u8>);

impl PackedExport {
    pub fn pack(export_json: &str) -> PackedExport {
        PackedExport(zstd::bulk::compress(export_json.as_bytes(), LEVEL).expect("compressing into memory cannot fail"))
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// The export text of a stored version's row, which holds it one way: `packed` since exports
/// were compressed, `text` in rows stored before.
pub(crate) fn stored_export(packed: Option<Vec<u8>>, text: Option<String>, stack: &str, version: i64) -> Result<String, StoreError> {
    let damaged = |why: String| StoreError::DamagedExport { stack: stack.to_string(), version, why };
    match (packed, text) {
        (Some(bytes), _) => {
            let text = zstd::stream::decode_all(bytes.as_slice()).map_err(|e| damaged(format!("it does not decompress: {e}")))?;
            String::from_utf8(text).map_err(|e| damaged(format!("it is not UTF-8 text: {e}")))
        }
        (None, Some(text)) => Ok(text),
        (None, None) => Err(damaged("it holds no export".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn an_export_unpacks_to_the_text_packed(text in ".{0,2000}") {
            prop_assert_eq!(stored_export(Some(PackedExport::pack(&text).0), None, "s", 1).unwrap(), text);
        }
    }

    #[test]
    fn damaged_bytes_are_an_error_naming_the_version() {
        let err = stored_export(Some(b"not zstd".to_vec()), None, "abc", 7).unwrap_err().to_string();
        assert!(err.contains("version 7 of stack `abc`") && err.contains("does not decompress"), "{err}");
    }
}

//! A stack version's export as the store packs it: what comes before its resources, runs of
//! resources, and what comes after, each a zstd frame of its own, and an index of the runs in a
//! skippable frame at the end. zstd reads concatenated frames as one text and passes over
//! skippable ones, so [`PackedJson::unpack`] reads this as any packed text.
//!
//! Why runs: a commit of 10,000 imports into a 100,000-resource stack rewrote and recompressed
//! all 110,000 resources (two fifths of the commit's instructions, callgrind, 2026-11-30). With
//! the base version's runs at hand, a commit takes every run it keeps whole as its compressed
//! bytes, and writes out only the runs it changed and what it adds: one state write per
//! commit, in the size of what changed.

use serde::Serialize;

use crate::packed::{PackedJson, LEVEL};

/// Items packed into one run. A 100,000-resource stack's runs are about 2 MB of text each.
pub const ITEMS_PER_RUN: usize = 4096;

/// The skippable frame's magic number (zstd gives 0x184D2A50 to 0x184D2A5F to such frames).
const SKIPPABLE_MAGIC: u32 = 0x184D_2A5E;
/// The index's last bytes, after its length: how an index is told from the end of a frame.
const INDEX_MARK: &[u8; 4] = b"FRUN";

/// Packs a document of the form `head item,item,… tail` run by run. Items are written out
/// (`push`) or taken whole from an earlier document's runs (`reuse`).
pub struct RunPacker {
    compressor: zstd::bulk::Compressor<'static>,
    out: Vec<u8>,
    head_len: usize,
    /// Each run's items and packed length, in order.
    runs: Vec<(usize, usize)>,
    /// Items in the document so far (pushed and reused).
    items: usize,
    pending: Vec<u8>,
    pending_items: usize,
}

impl RunPacker {
    /// A document starting with `head` (which ends where the first item goes).
    pub fn new(head: &str) -> RunPacker {
        let mut compressor =
            zstd::bulk::Compressor::new(LEVEL).expect("a zstd compressor into memory starts");
        let out =
            compressor.compress(head.as_bytes()).expect("compressing into memory cannot fail");
        RunPacker {
            compressor,
            head_len: out.len(),
            out,
            runs: Vec::new(),
            items: 0,
            pending: Vec::new(),
            pending_items: 0,
        }
    }

    /// Writes out the next item.
    pub fn push(&mut self, item: &impl Serialize) -> Result<(), serde_json::Error> {
        if self.items > 0 {
            self.pending.push(b',');
        }
        serde_json::to_writer(&mut self.pending, item)?;
        self.pending_items += 1;
        self.items += 1;
        if self.pending_items == ITEMS_PER_RUN {
            self.close_run();
        }
        Ok(())
    }

    /// Takes `base`'s run `run` as the next items, as it was packed; `false` (nothing taken)
    /// when it cannot go here: a run written first in its list has no comma before its first
    /// item, and every other run has one.
    pub fn reuse(&mut self, base: &PackedRuns<'_>, run: usize) -> bool {
        let Run { first, items, offset, len } = base.runs[run];
        if (first == 0) != (self.items == 0) {
            return false;
        }
        self.close_run();
        self.out.extend_from_slice(&base.bytes[offset..offset + len]);
        self.runs.push((items, len));
        self.items += items;
        true
    }

    /// The document, ended with `tail`, and the index of its runs.
    pub fn finish(mut self, tail: &str) -> PackedJson {
        self.close_run();
        let tail =
            self.compressor.compress(tail.as_bytes()).expect("compressing into memory cannot fail");
        self.out.extend_from_slice(&tail);
        let mut index = Vec::with_capacity(16 + 8 * self.runs.len());
        let mut number = |n: usize| {
            let n = u32::try_from(n).expect("a run's size fits 32 bits");
            index.extend_from_slice(&n.to_le_bytes());
        };
        number(self.head_len);
        number(self.runs.len());
        for &(items, len) in &self.runs {
            number(items);
            number(len);
        }
        number(tail.len());
        let size = index.len() + 8;
        index.extend_from_slice(&(size as u32).to_le_bytes());
        index.extend_from_slice(INDEX_MARK);
        self.out.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
        self.out.extend_from_slice(&(size as u32).to_le_bytes());
        self.out.extend_from_slice(&index);
        PackedJson::from_frames(self.out)
    }

    fn close_run(&mut self) {
        if self.pending_items == 0 {
            return;
        }
        let packed =
            self.compressor.compress(&self.pending).expect("compressing into memory cannot fail");
        self.out.extend_from_slice(&packed);
        self.runs.push((self.pending_items, packed.len()));
        self.pending.clear();
        self.pending_items = 0;
    }
}

/// One run of a packed document: its first item's position in the list, how many items it
/// holds, and where its frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    first: usize,
    items: usize,
    offset: usize,
    len: usize,
}

/// The runs of a document [`RunPacker`] packed.
#[derive(Debug)]
pub struct PackedRuns<'b> {
    bytes: &'b [u8],
    runs: Vec<Run>,
}

impl<'b> PackedRuns<'b> {
    /// The runs of `bytes`; `None` when they hold no index that adds up (packed another way,
    /// as versions stored before were, or damaged), and nothing of them can be taken.
    pub fn read(bytes: &'b [u8]) -> Option<PackedRuns<'b>> {
        let end = bytes.len().checked_sub(8)?;
        if &bytes[end + 4..] != INDEX_MARK {
            return None;
        }
        let size = u32_at(bytes, end)? as usize;
        let start = bytes.len().checked_sub(size + 8)?;
        if u32_at(bytes, start)? != SKIPPABLE_MAGIC || u32_at(bytes, start + 4)? as usize != size {
            return None;
        }
        let mut at = start + 8;
        let mut next = || {
            let n = u32_at(bytes, at).filter(|_| at + 4 <= end)?;
            at += 4;
            Some(n as usize)
        };
        let head_len = next()?;
        let count = next()?;
        let mut runs = Vec::with_capacity(count.min(size / 8));
        let (mut first, mut offset) = (0, head_len);
        for _ in 0..count {
            let (items, len) = (next()?, next()?);
            if items == 0 || len == 0 {
                return None;
            }
            runs.push(Run { first, items, offset, len });
            first += items;
            offset += len;
        }
        let tail_len = next()?;
        (at == end && offset.checked_add(tail_len)? == start).then_some(PackedRuns { bytes, runs })
    }

    /// The run whose first item is the list's item `first`, if one starts there.
    pub fn starting_at(&self, first: usize) -> Option<usize> {
        self.runs.binary_search_by_key(&first, |r| r.first).ok()
    }

    /// How many items run `run` holds.
    pub fn items_in(&self, run: usize) -> usize {
        self.runs[run].items
    }

    /// How many runs there are.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let word = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(word.try_into().expect("four bytes")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text(head: &str, items: &[i64], tail: &str) -> String {
        let items: Vec<String> = items.iter().map(i64::to_string).collect();
        format!("{head}{}{tail}", items.join(","))
    }

    fn pack(items: &[i64]) -> PackedJson {
        let mut packer = RunPacker::new("{\"list\":[");
        for item in items {
            packer.push(item).unwrap();
        }
        packer.finish("],\"n\":1}")
    }

    fn unpacked(packed: &PackedJson) -> String {
        String::from_utf8(PackedJson::unpack(packed.bytes()).unwrap()).unwrap()
    }

    proptest! {
        /// Packed run by run, a document unpacks to its text, and its index reads back.
        #[test]
        fn a_document_packed_in_runs_unpacks_to_its_text(len in 0usize..10_000) {
            let items: Vec<i64> = (0..len as i64).collect();
            let packed = pack(&items);
            prop_assert!(PackedJson::is_packed(packed.bytes()));
            prop_assert_eq!(unpacked(&packed), text("{\"list\":[", &items, "],\"n\":1}"));
            let runs = PackedRuns::read(packed.bytes()).unwrap();
            prop_assert_eq!(runs.len(), len.div_ceil(ITEMS_PER_RUN));
        }

        /// A document made of an earlier one's runs, taken whole, and items written out, is the
        /// text of all its items: whichever runs are taken and wherever they go.
        #[test]
        fn runs_taken_from_an_earlier_document_read_as_their_items(
            len in 1usize..12_000,
            plan in proptest::collection::vec((any::<bool>(), 0usize..5, 0usize..50), 1..8),
        ) {
            let base_items: Vec<i64> = (0..len as i64).collect();
            let base = pack(&base_items);
            let runs = PackedRuns::read(base.bytes()).unwrap();
            let mut packer = RunPacker::new("[");
            let mut expected = Vec::new();
            for (take, run, fresh) in plan {
                let run = run % runs.len();
                if take && packer.reuse(&runs, run) {
                    let first = runs.runs[run].first;
                    expected.extend_from_slice(&base_items[first..first + runs.items_in(run)]);
                }
                for i in 0..fresh {
                    packer.push(&(-(i as i64))).unwrap();
                    expected.push(-(i as i64));
                }
            }
            let packed = packer.finish("]");
            prop_assert_eq!(unpacked(&packed), text("[", &expected, "]"));
            let again = PackedRuns::read(packed.bytes()).unwrap();
            prop_assert_eq!((0..again.len()).map(|r| again.items_in(r)).sum::<usize>(), expected.len());
        }
    }

    /// A run first in its list has no comma before it, and goes only first; any other run goes
    /// anywhere but first.
    #[test]
    fn a_run_goes_only_where_its_comma_fits() {
        let items: Vec<i64> = (0..(ITEMS_PER_RUN as i64 * 2)).collect();
        let base = pack(&items);
        let runs = PackedRuns::read(base.bytes()).unwrap();
        let mut packer = RunPacker::new("[");
        assert!(!packer.reuse(&runs, 1), "a later run cannot go first");
        assert!(packer.reuse(&runs, 0));
        assert!(!packer.reuse(&runs, 0), "the first run cannot go later");
        assert!(packer.reuse(&runs, 1));
        let packed = packer.finish("]");
        assert_eq!(unpacked(&packed), text("[", &items, "]"));
    }

    /// Bytes packed another way, or an index that does not add up, have no runs to take.
    #[test]
    fn text_packed_another_way_or_a_damaged_index_has_no_runs() {
        assert!(PackedRuns::read(PackedJson::pack("[1,2,3]").bytes()).is_none());
        assert!(PackedRuns::read(b"").is_none());
        assert!(PackedRuns::read(b"FRUN").is_none());
        let packed = pack(&[1, 2, 3]);
        let bytes = packed.bytes();
        assert!(PackedRuns::read(bytes).is_some());
        for at in 0..bytes.len() {
            let mut damaged = bytes.to_vec();
            damaged[at] ^= 0x55;
            // A damaged index is refused or still adds up; it never reads past its bytes.
            if let Some(runs) = PackedRuns::read(&damaged) {
                let end = runs.runs.last().map_or(0, |r| r.offset + r.len);
                assert!(end <= damaged.len());
            }
        }
        assert!(PackedRuns::read(&bytes[..bytes.len() - 1]).is_none());
    }
}

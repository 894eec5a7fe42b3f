//! A stack version's export packed as the store keeps it, a run of resources at a time
//! ([`ferry_store::packed_runs`]). An upload writes every run; a commit takes whole each run
//! of its base version that it keeps as it was, and writes out the rest.

use ferry_state::export_parts::export_around_resources;
use ferry_state::Deployment;
use ferry_store::packed_runs::{PackedRuns, RunPacker, ITEMS_PER_RUN};
use ferry_store::PackedJson;

/// The fewest resources a base run must hold to be taken whole. Smaller runs are written out
/// again with what follows them, so that commit after commit the runs do not shrink into many
/// small frames (each compresses worse, and alone).
const FEWEST_TAKEN: usize = ITEMS_PER_RUN / 4;

/// What a commit's new version can take from its base version.
pub(crate) struct BaseRuns<'a> {
    /// The base version's export, as the store packed it.
    pub runs: PackedRuns<'a>,
    /// For each resource of the new version, the base position it is a verbatim copy of.
    pub kept: &'a [Option<usize>],
}

impl BaseRuns<'_> {
    /// The base run that the new version's resources from `at` on repeat whole, if any.
    fn run_at(&self, at: usize) -> Option<usize> {
        let first = (*self.kept.get(at)?)?;
        let run = self.runs.starting_at(first)?;
        let items = self.runs.items_in(run);
        let copies = self.kept.get(at..at + items)?;
        (items >= FEWEST_TAKEN
            && copies.iter().enumerate().all(|(i, &kept)| kept == Some(first + i)))
        .then_some(run)
    }
}

/// `deployment`'s export (as [`ferry_state::load::export_text`] writes it), packed run by run,
/// taking from `base` what it can.
pub(crate) fn pack_export(
    deployment: &Deployment,
    features: &[String],
    base: Option<&BaseRuns<'_>>,
) -> PackedJson {
    let Some((head, tail)) = export_around_resources(deployment, features) else {
        return PackedJson::pack(&ferry_state::load::export_text(deployment, features));
    };
    let resources = deployment.resources();
    let mut packer = RunPacker::new(&head);
    let mut at = 0;
    while at < resources.len() {
        if let Some((base, run)) = base.and_then(|b| Some((b, b.run_at(at)?))) {
            if packer.reuse(&base.runs, run) {
                at += base.runs.items_in(run);
                continue;
            }
        }
        packer.push(&resources[at]).expect("a resource always serialises");
        at += 1;
    }
    packer.finish(&tail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_state::Resource;

    fn resource(n: usize) -> Resource {
        serde_json::from_value(serde_json::json!({
            "urn": format!("urn:pulumi:s::p::random:index/randomInteger:RandomInteger::r{n}"),
            "type": "random:index/randomInteger:RandomInteger",
            "custom": true,
            "id": n.to_string(),
            "outputs": {"result": n},
        }))
        .unwrap()
    }

    fn deployment(resources: Vec<Resource>, time: &str) -> Deployment {
        let mut d: Deployment = serde_json::from_value(serde_json::json!({
            "manifest": {"time": time},
            "resources": [],
        }))
        .unwrap();
        d.resources = Some(resources);
        d
    }

    fn text(packed: &PackedJson) -> String {
        String::from_utf8(PackedJson::unpack(packed.bytes()).unwrap()).unwrap()
    }

    /// A commit that appends to a stack takes its base's whole runs and writes only what it
    /// adds; what it stores is the export's text all the same.
    #[test]
    fn a_commit_takes_the_runs_it_keeps_and_writes_the_rest() {
        let count = ITEMS_PER_RUN * 2 + 100;
        let base = deployment((0..count).map(resource).collect(), "before");
        let packed = pack_export(&base, &[], None);
        assert_eq!(text(&packed), ferry_state::load::export_text(&base, &[]));
        let base_runs = PackedRuns::read(packed.bytes()).unwrap();
        assert_eq!(base_runs.len(), 3);

        // The next version: the base's resources kept, the 1,000 after them new, and the time.
        let mut next = deployment((0..count + 1000).map(resource).collect(), "after");
        let kept: Vec<Option<usize>> =
            (0..count + 1000).map(|i| (i < count).then_some(i)).collect();
        // A run taken whole is the base's bytes: mark a resource in the base's text that
        // `next` no longer has, to see that it was taken rather than written.
        next.resources.as_mut().unwrap()[5] = resource(999_999);
        let packed_next = pack_export(&next, &[], Some(&BaseRuns { runs: base_runs, kept: &kept }));
        let stored: Deployment = serde_json::from_str::<serde_json::Value>(&text(&packed_next))
            .map(|v| serde_json::from_value(v["deployment"].clone()).unwrap())
            .unwrap();
        assert_eq!(stored.manifest.as_ref().unwrap()["time"], "after");
        assert_eq!(stored.resources().len(), count + 1000);
        assert_eq!(stored.resources()[5], resource(5), "the first run is the base's");
        assert_eq!(stored.resources()[count + 999], resource(count + 999));
        // The two full runs were taken; the base's last, short run was written out again with
        // what follows it.
        let runs = PackedRuns::read(packed_next.bytes()).unwrap();
        let sizes: Vec<usize> = (0..runs.len()).map(|r| runs.items_in(r)).collect();
        assert_eq!(sizes, [ITEMS_PER_RUN, ITEMS_PER_RUN, 1100]);
    }

    /// A resource changed, moved or dropped inside a run means that run is written out again.
    #[test]
    fn a_run_not_kept_whole_is_written_out() {
        let count = ITEMS_PER_RUN * 2;
        let base = deployment((0..count).map(resource).collect(), "before");
        let packed = pack_export(&base, &[], None);
        let mut next = deployment((0..count).map(resource).collect(), "after");
        next.resources.as_mut().unwrap()[ITEMS_PER_RUN + 7] = resource(777_777);
        let mut kept: Vec<Option<usize>> = (0..count).map(Some).collect();
        kept[ITEMS_PER_RUN + 7] = None;
        let runs = PackedRuns::read(packed.bytes()).unwrap();
        let packed_next = pack_export(&next, &[], Some(&BaseRuns { runs, kept: &kept }));
        assert_eq!(text(&packed_next), ferry_state::load::export_text(&next, &[]));
    }
}

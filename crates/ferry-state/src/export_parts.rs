//! An export's text in three parts: what comes before its resources, each resource, and what
//! comes after. The store packs a version's resources a run at a time, so that a commit writes
//! out only the runs it changed and takes the others as they were stored.

use std::cell::Cell;
use std::io::Write;

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::deployment::{Deployment, SecretsProviders};
use crate::load::Export;

/// The export's text up to and including its resources' `[`, and from their `]` on: with the
/// resources' texts between, joined by commas, it is [`crate::load::export_text`]'s text. `None`
/// for a deployment without a `resources` field, which has no list to put them in.
pub fn export_around_resources(
    deployment: &Deployment,
    features: &[String],
) -> Option<(String, String)> {
    deployment.resources.as_ref()?;
    let at = Cell::new(None);
    let written = Cell::new(0);
    // The deployment's fields as its derived `Serialize` writes them, in its order, with the
    // resources replaced by an empty list that notes where it is written.
    #[derive(Serialize)]
    struct Around<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        manifest: Option<&'a Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        secrets_providers: Option<&'a SecretsProviders>,
        resources: Gap<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pending_operations: Option<&'a Vec<Value>>,
        #[serde(flatten)]
        extra: &'a Map<String, Value>,
    }
    let around = Around {
        manifest: deployment.manifest.as_ref(),
        secrets_providers: deployment.secrets_providers.as_ref(),
        resources: Gap { at: &at, written: &written },
        pending_operations: deployment.pending_operations.as_ref(),
        extra: &deployment.extra,
    };
    let mut out = Counted { text: Vec::new(), written: &written };
    serde_json::to_writer(&mut out, &Export::of(around, features))
        .expect("a deployment always serialises");
    let at = at.get().expect("the resources are written");
    let text = String::from_utf8(out.text).expect("serde_json writes UTF-8");
    // `at` is where the empty list's `[` is: the parts split between its two brackets.
    let (head, tail) = text.split_at(at + 1);
    Some((head.to_string(), tail.to_string()))
}

/// An empty list that records how much had been written when it was reached. serde_json
/// writes a field's key and colon to its writer before asking the value to serialise itself,
/// and writes straight through, so that count is where the list starts.
struct Gap<'a> {
    at: &'a Cell<Option<usize>>,
    written: &'a Cell<usize>,
}

impl Serialize for Gap<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.at.set(Some(self.written.get()));
        serializer.collect_seq(std::iter::empty::<()>())
    }
}

/// A writer that keeps count of what it was given.
struct Counted<'a> {
    text: Vec<u8>,
    written: &'a Cell<usize>,
}

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.text.extend_from_slice(buf);
        self.written.set(self.text.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::export_text;

    fn joined(deployment: &Deployment, features: &[String]) -> String {
        let (head, tail) = export_around_resources(deployment, features).unwrap();
        let resources: Vec<String> =
            deployment.resources().iter().map(|r| serde_json::to_string(r).unwrap()).collect();
        format!("{head}{}{tail}", resources.join(","))
    }

    /// The parts put back together are the export's text, for every field a deployment can
    /// carry: when `Deployment` gains a field and this module does not, this fails.
    #[test]
    fn the_parts_and_the_resources_are_the_export() {
        let deployment: Deployment = serde_json::from_value(serde_json::json!({
            "manifest": {"time": "t", "resources": [1]},
            "secrets_providers": {"type": "passphrase", "state": {"salt": "v1:x", "resources": []}},
            "resources": [
                {"urn": "urn:pulumi:s::p::t:i:A::a", "type": "t:i:A", "custom": true, "id": "1"},
                {"urn": "urn:pulumi:s::p::t:i:B::b", "type": "t:i:B", "futureField": [1]},
            ],
            "pending_operations": [{"type": "creating"}],
            "metadata": {"resources": []},
            "zzz": "later"
        }))
        .unwrap();
        for features in [vec![], vec!["refreshBeforeUpdate".to_string()]] {
            assert_eq!(joined(&deployment, &features), export_text(&deployment, &features));
        }
        let mut empty = deployment.clone();
        empty.resources = Some(vec![]);
        assert_eq!(joined(&empty, &[]), export_text(&empty, &[]));
        let (head, tail) = export_around_resources(&deployment, &[]).unwrap();
        assert!(head.ends_with("\"resources\":[") && tail.starts_with("],"), "{head} … {tail}");
    }

    #[test]
    fn a_deployment_without_resources_has_no_parts() {
        let deployment: Deployment =
            serde_json::from_value(serde_json::json!({"manifest": {}})).unwrap();
        assert!(export_around_resources(&deployment, &[]).is_none());
    }
}

//! Reading a state file in any layout Pulumi has written, migrating it to a v3 deployment.
//!
//! | layout | shape |
//! |---|---|
//! | checkpoint v0 | `{target, latest: {time, resources}}` (no version) |
//! | checkpoint v1–v4 | `{version, features?, checkpoint: {stack or target, config?, latest: D}}` |
//! | export v1–v4 | `{version, features?, deployment: D}` (`pulumi stack export`) |
//!
//! v1 resources carried `defaults`, which Pulumi dropped when it moved to v2; v1 deployments
//! kept `time` where later ones have `manifest.time`.

use std::fmt;

use serde_json::{json, Map, Value};

use crate::deployment::{canonicalize_keys, Deployment, DEPLOYMENT_KEYS, RESOURCE_KEYS};
use crate::error::{ErrorCode, StateError};
use crate::secrets::{verify_secrets, SecretsSummary};
use crate::validate::check_references;
use crate::warning::StateWarning;

/// The newest deployment version Ferry reads. Version 4 is version 3 plus `features`.
pub const LATEST_VERSION: u64 = 4;
/// Features a v4 file may require that Ferry understands.
pub const SUPPORTED_FEATURES: &[&str] = &["refreshBeforeUpdate"];

/// What the caller supplies besides the bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions<'a> {
    /// For the `passphrase` secrets provider; used for this load only, never kept.
    pub passphrase: Option<&'a str>,
    /// The key already derived from that passphrase, if the caller has it (used instead of
    /// deriving it again when it matches the state's salt).
    pub key: Option<&'a crate::secrets::PassphraseCrypter>,
    /// Accept passphrase-encrypted secrets without the passphrase (a warning says they were not
    /// checked): for state read from the backend Pulumi itself writes, where the passphrase
    /// arrives only with the commit that needs it.
    pub unchecked_passphrase_secrets: bool,
    /// For each resource, whether it is an unchanged copy of a resource of a state Ferry stored
    /// (what a commit keeps of its base): its URN passed the check that it is one when that
    /// state was stored, and is not parsed again. Its references are checked as every other's:
    /// what they named may have left. Empty: no resource is such a copy.
    pub stored_copies: &'a [bool],
}

/// Which layout a file had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    Checkpoint { version: u64 },
    Export { version: u64 },
}

impl fmt::Display for SourceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceFormat::Checkpoint { version } => write!(f, "checkpoint v{version}"),
            SourceFormat::Export { version } => write!(f, "stack export v{version}"),
        }
    }
}

/// A state file, read, migrated and checked.
#[derive(Debug, Clone)]
pub struct LoadedState {
    pub format: SourceFormat,
    /// The stack name a checkpoint records (`org/project/stack` or a bare name), if any.
    pub stack: Option<String>,
    pub features: Vec<String>,
    pub deployment: Deployment,
    pub secrets: SecretsSummary,
    pub warnings: Vec<StateWarning>,
}

impl LoadedState {
    /// The state as `pulumi stack export` writes it: version 3, or 4 when features are needed.
    pub fn to_export(&self) -> Value {
        export_value(&self.deployment, &self.features)
    }

    /// [`Self::to_export`] as text, as Ferry stores it.
    pub fn export_text(&self) -> String {
        export_text(&self.deployment, &self.features)
    }
}

/// The export's envelope: version 3, or 4 with the features the deployment needs. `D` is the
/// deployment, or what stands for it while the text around its resources is written
/// ([`crate::export_parts`]).
#[derive(serde::Serialize)]
pub(crate) struct Export<'a, D> {
    version: u64,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    features: &'a [String],
    deployment: D,
}

impl<'a, D> Export<'a, D> {
    pub(crate) fn of(deployment: D, features: &'a [String]) -> Export<'a, D> {
        Export { version: if features.is_empty() { 3 } else { 4 }, features, deployment }
    }
}

/// [`export_value`]'s text, written straight from the deployment (no intermediate value: for a
/// big stack that copy is as large as the state itself).
pub fn export_text(deployment: &Deployment, features: &[String]) -> String {
    serde_json::to_string(&Export::of(deployment, features))
        .expect("a deployment always serialises")
}

/// `{version, deployment}` for a deployment and the features it needs.
pub fn export_value(deployment: &Deployment, features: &[String]) -> Value {
    serde_json::to_value(Export::of(deployment, features)).expect("a deployment always serialises")
}

/// Reads, migrates and checks a state file.
pub fn load_state(bytes: &[u8], options: LoadOptions<'_>) -> Result<LoadedState, StateError> {
    if let Some(loaded) = load_direct(bytes, options) {
        return loaded;
    }
    load_through_value(bytes, options)
}

/// The direct way in, for what Pulumi writes today (version 2 to 4, keys spelled as Pulumi
/// spells them): the bytes are read straight into the typed deployment, with no JSON value in
/// between (for a 100,000-resource state that value alone is a few hundred MB). Anything else —
/// older layouts, keys in other letter cases, a file that does not read — answers `None`, and
/// [`load_through_value`] reads it and says precisely what is wrong.
fn load_direct(bytes: &[u8], options: LoadOptions<'_>) -> Option<Result<LoadedState, StateError>> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Root {
        version: Option<u64>,
        features: Option<Value>,
        deployment: Option<Deployment>,
        checkpoint: Option<Checkpoint>,
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Checkpoint {
        stack: Option<String>,
        target: Option<serde::de::IgnoredAny>,
        // Read past (the stack's config is not state), but named so it is not unknown.
        #[serde(rename = "config")]
        _config: Option<serde::de::IgnoredAny>,
        latest: Option<Deployment>,
    }
    let root: Root = serde_json::from_slice(bytes).ok()?;
    let version = root.version.filter(|v| (2..=LATEST_VERSION).contains(v))?;
    let (format, stack, base, deployment) = match (root.deployment, root.checkpoint) {
        (Some(deployment), None) => {
            (SourceFormat::Export { version }, None, "deployment", deployment)
        }
        // A checkpoint naming its stack by `target` alone is an old one: the other way reads it.
        (None, Some(Checkpoint { stack, target, latest: Some(latest), .. }))
            if stack.is_some() || target.is_none() =>
        {
            (
                SourceFormat::Checkpoint { version },
                stack.filter(|s| !s.is_empty()),
                "checkpoint.latest",
                latest,
            )
        }
        _ => return None,
    };
    if respelled_keys(&deployment) {
        return None;
    }
    let mut features_root = Map::new();
    if let Some(features) = root.features {
        features_root.insert("features".into(), features);
    }
    let features = read_features(&features_root).ok()?;
    Some(check_deployment(&deployment, base, options).map(|(secrets, warnings)| LoadedState {
        format,
        stack,
        features,
        deployment,
        secrets,
        warnings,
    }))
}

/// Whether a key differs from a field's name only in letter case (Go's decoder accepts it, and
/// [`load_through_value`] renames it).
fn respelled_keys(deployment: &Deployment) -> bool {
    let respelled = |key: &str, known: &[&str]| {
        !known.contains(&key) && known.iter().any(|k| k.eq_ignore_ascii_case(key))
    };
    deployment.extra.keys().any(|k| respelled(k, DEPLOYMENT_KEYS) || k.eq_ignore_ascii_case("time"))
        || deployment.resources().iter().any(|r| {
            r.extra
                .keys()
                .any(|k| respelled(k, RESOURCE_KEYS) || k.eq_ignore_ascii_case("defaults"))
        })
}

/// Reads any layout through a JSON value: keys are matched in any letter case, old layouts are
/// migrated, and errors name the path of what is wrong.
fn load_through_value(bytes: &[u8], options: LoadOptions<'_>) -> Result<LoadedState, StateError> {
    let root: Value = serde_json::from_slice(bytes).map_err(|e| {
        StateError::new(ErrorCode::InvalidJson, format!("the file is not valid JSON: {e}"))
    })?;
    let Value::Object(mut root) = root else {
        return Err(StateError::new(
            ErrorCode::InvalidState,
            "a state file must be a JSON object with `version` and `checkpoint` or `deployment`",
        ));
    };
    canonicalize_keys(&mut root, &["version", "features", "checkpoint", "deployment"]);

    let version = match root.get("version") {
        None => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| {
            StateError::new(
                ErrorCode::UnsupportedVersion,
                format!("`version` must be a whole number from 0 to {LATEST_VERSION}, found {v}"),
            )
            .at("version")
        })?),
    };
    if let Some(v) = version {
        if v > LATEST_VERSION {
            return Err(StateError::new(
                ErrorCode::UnsupportedVersion,
                format!(
                    "state version {v} is newer than the newest Ferry reads ({LATEST_VERSION}); \
                     it was written by a newer Pulumi"
                ),
            )
            .at("version"));
        }
    }
    let features = read_features(&root)?;

    let (format, stack, base, deployment) = if let Some(deployment) = root.remove("deployment") {
        let v = version.ok_or_else(|| {
            StateError::new(ErrorCode::UnsupportedVersion, "a stack export needs a `version`")
        })?;
        if v == 0 {
            return Err(StateError::new(
                ErrorCode::UnsupportedVersion,
                "stack export version 0 does not exist; exports start at version 1",
            )
            .at("version"));
        }
        (SourceFormat::Export { version: v }, None, "deployment".to_string(), deployment)
    } else if let Some(checkpoint) = root.remove("checkpoint") {
        let v = version.unwrap_or(0);
        let Value::Object(mut checkpoint) = checkpoint else {
            return Err(StateError::new(ErrorCode::InvalidState, "`checkpoint` must be an object")
                .at("checkpoint"));
        };
        canonicalize_keys(&mut checkpoint, &["stack", "target", "config", "latest"]);
        let stack = checkpoint_stack(&checkpoint);
        let latest = checkpoint.remove("latest").unwrap_or(Value::Null);
        (SourceFormat::Checkpoint { version: v }, stack, "checkpoint.latest".to_string(), latest)
    } else if root.contains_key("latest") || root.contains_key("target") {
        // Checkpoint v0: the v1 checkpoint body with no envelope.
        canonicalize_keys(&mut root, &["stack", "target", "config", "latest"]);
        let stack = checkpoint_stack(&root);
        let latest = root.remove("latest").unwrap_or(Value::Null);
        (
            SourceFormat::Checkpoint { version: version.unwrap_or(0) },
            stack,
            "latest".to_string(),
            latest,
        )
    } else {
        return Err(StateError::new(
            ErrorCode::InvalidState,
            "not a Pulumi state file: expected `checkpoint` (a checkpoint file) or `deployment` \
             (a `pulumi stack export` file)",
        ));
    };

    let source_version = match format {
        SourceFormat::Checkpoint { version } | SourceFormat::Export { version } => version,
    };
    let deployment = migrate_deployment(deployment, source_version, &base)?;
    let deployment: Deployment = serde_path_to_error::deserialize(deployment).map_err(|e| {
        let inner = e.path().to_string();
        let path = if inner == "." { base.clone() } else { format!("{base}.{inner}") };
        StateError::new(ErrorCode::InvalidState, e.inner().to_string()).at(path)
    })?;

    let (secrets, warnings) = check_deployment(&deployment, &base, options)?;
    Ok(LoadedState { format, stack, features, deployment, secrets, warnings })
}

/// The checks every state Ferry keeps passes, whether read from a file or written by a commit:
/// references resolve (or are warned about) and secrets decrypt. `base` is where the deployment
/// sits in the file, for error paths.
pub fn check_deployment(
    deployment: &Deployment,
    base: &str,
    options: LoadOptions<'_>,
) -> Result<(SecretsSummary, Vec<StateWarning>), StateError> {
    let mut warnings = check_references(deployment, base, options.stored_copies)?;
    let secrets = verify_secrets(
        deployment,
        base,
        options.passphrase,
        options.key,
        options.unchecked_passphrase_secrets,
        &mut warnings,
    )?;
    Ok((secrets, warnings))
}

fn checkpoint_stack(checkpoint: &Map<String, Value>) -> Option<String> {
    checkpoint
        .get("stack")
        .or_else(|| checkpoint.get("target"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn read_features(root: &Map<String, Value>) -> Result<Vec<String>, StateError> {
    let Some(features) = root.get("features") else { return Ok(Vec::new()) };
    let items = features.as_array().ok_or_else(|| {
        StateError::new(ErrorCode::InvalidState, "`features` must be an array of strings")
            .at("features")
    })?;
    let mut out = Vec::with_capacity(items.len());
    let mut unknown = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let name = item.as_str().ok_or_else(|| {
            StateError::new(ErrorCode::InvalidState, "a feature must be a string")
                .at(format!("features[{i}]"))
        })?;
        if !SUPPORTED_FEATURES.contains(&name) {
            unknown.push(name.to_string());
        }
        out.push(name.to_string());
    }
    if !unknown.is_empty() {
        return Err(StateError::new(
            ErrorCode::UnknownFeature,
            format!(
                "the state requires feature(s) Ferry does not support: {} (supported: {})",
                unknown.join(", "),
                SUPPORTED_FEATURES.join(", ")
            ),
        )
        .at("features"));
    }
    Ok(out)
}

/// Brings a deployment object of any version to the v3 shape, in place.
fn migrate_deployment(deployment: Value, version: u64, base: &str) -> Result<Value, StateError> {
    let Value::Object(mut d) = deployment else {
        return Err(
            StateError::new(ErrorCode::InvalidState, "the deployment must be an object").at(base)
        );
    };
    canonicalize_keys(&mut d, &[DEPLOYMENT_KEYS, &["time"]].concat());
    if version <= 1 {
        // v1 deployments kept the time at the top; v2 moved it into the manifest.
        if !d.contains_key("manifest") {
            let time = d.remove("time").unwrap_or(Value::String(String::new()));
            d.insert("manifest".into(), json!({"time": time, "magic": "", "version": ""}));
        }
    }
    if let Some(resources) = d.get_mut("resources") {
        match resources {
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    let Value::Object(r) = item else {
                        return Err(StateError::new(
                            ErrorCode::InvalidState,
                            "a resource must be an object",
                        )
                        .at(format!("{base}.resources[{i}]")));
                    };
                    canonicalize_keys(r, &[RESOURCE_KEYS, &["defaults"]].concat());
                    if version <= 1 {
                        // Pulumi dropped v1's `defaults` when it introduced v2.
                        r.remove("defaults");
                    }
                }
            }
            Value::Null => {}
            _ => {
                return Err(StateError::new(
                    ErrorCode::InvalidState,
                    "`resources` must be an array",
                )
                .at(format!("{base}.resources")))
            }
        }
    }
    Ok(Value::Object(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compare(name: &str, bytes: &[u8]) -> bool {
        let Some(direct) = load_direct(bytes, LoadOptions::default()) else { return false };
        let through = load_through_value(bytes, LoadOptions::default());
        match (direct, through) {
            (Ok(d), Ok(t)) => {
                assert_eq!(
                    (d.format, &d.stack, &d.features, &d.secrets, &d.warnings),
                    (t.format, &t.stack, &t.features, &t.secrets, &t.warnings),
                    "{name}"
                );
                assert_eq!(d.deployment, t.deployment, "{name}: the deployments differ");
            }
            (Err(d), Err(t)) => assert_eq!(d, t, "{name}"),
            (d, t) => panic!(
                "{name}: the direct way gave {:?}, the other {:?}",
                d.map(|_| ()),
                t.map(|_| ())
            ),
        }
        true
    }

    /// Every fixture the direct way reads, it reads as the other way does; what it does not
    /// read, it leaves to the other way.
    #[test]
    fn the_direct_way_reads_what_the_value_way_reads() {
        let root =
            std::env::var_os("FERRY_FIXTURES").map(std::path::PathBuf::from).unwrap_or_else(|| {
                std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("../../../shared/fixtures")
            });
        let mut dirs = vec![root.join("pulumi/state")];
        let (mut direct, mut files) = (0, 0);
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "json") {
                    files += 1;
                    direct += usize::from(compare(
                        &path.display().to_string(),
                        &std::fs::read(&path).unwrap(),
                    ));
                }
            }
        }
        assert!(files > 10 && direct > 5, "{direct} of {files} files read directly");
    }

    #[test]
    fn respelled_keys_and_old_layouts_take_the_other_way() {
        let respelled = br#"{"version": 3, "deployment": {"resources": [{"urn": "urn:pulumi:s::p::t:i:T::n", "type": "t:i:T", "importId": "x"}]}}"#;
        assert!(load_direct(respelled, LoadOptions::default()).is_none());
        assert_eq!(
            load_state(respelled, LoadOptions::default()).unwrap().deployment.resources()[0].extra
                ["importID"],
            "x"
        );
        let upper = br#"{"version": 3, "deployment": {"resources": [{"URN": "urn:pulumi:s::p::t:i:T::n", "type": "t:i:T"}]}}"#;
        assert!(load_direct(upper, LoadOptions::default()).is_none());
        assert_eq!(
            load_state(upper, LoadOptions::default()).unwrap().deployment.resources()[0].urn,
            "urn:pulumi:s::p::t:i:T::n"
        );
        let v1 =
            br#"{"version": 1, "deployment": {"time": "2017-01-01T00:00:00Z", "resources": []}}"#;
        assert!(load_direct(v1, LoadOptions::default()).is_none());
        let plain = br#"{"version": 3, "deployment": {"resources": [{"urn": "urn:pulumi:s::p::t:i:T::n", "type": "t:i:T", "futureField": 1}]}}"#;
        assert!(compare("plain", plain));
    }
}

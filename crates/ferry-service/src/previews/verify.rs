//! Code proven to preview clean. Elision leaves out inputs that only repeat a schema default or
//! a zero value Read returned; whether the provider agrees is its `Check` and `Diff` to say, not
//! the schema's. So each generated resource's inputs, as the code writes them, go through the
//! provider exactly as the user's `pulumi up` will send them (Check with the read inputs as
//! olds, then Diff against the read state). A property whose absence makes Diff report a change
//! is put back, and the resource is verified again.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use ferry_codegen::{elidable_inputs, PackageSchema, SourceResource};
use ferry_engine::deploy::{provider_config, provider_version};
use ferry_engine::inquiry::{self, Comparison, ComparisonError, RecordedResource};
use ferry_engine::provider::{Provider, ProviderInstance, ProviderSource};
use ferry_property::PropertyMap;
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

/// What verification found for one resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verification {
    pub urn: String,
    pub name: String,
    /// The code's inputs preview clean: Check passes and Diff reports no change.
    pub clean: bool,
    /// Inputs elision would leave out that had to stay, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept: Vec<KeptProperty>,
    /// Why the resource is not clean, or could not be verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptProperty {
    pub property: String,
    pub why: String,
}

impl Verification {
    /// `verified: previews clean`, or what had to stay, or the problem.
    pub fn summary(&self) -> String {
        match (&self.problem, self.kept.is_empty()) {
            (Some(p), _) => format!("not verified: {p}"),
            (None, true) => "verified: previews clean".into(),
            (None, false) => {
                let kept: Vec<String> =
                    self.kept.iter().map(|k| format!("`{}` ({})", k.property, k.why)).collect();
                format!("verified: previews clean with {} kept", kept.join(", "))
            }
        }
    }
}

/// The properties each verified resource must keep, by URN: what code generation is told.
pub fn kept_properties(verifications: &[Verification]) -> BTreeMap<String, BTreeSet<String>> {
    verifications
        .iter()
        .filter(|v| !v.kept.is_empty())
        .map(|v| (v.urn.clone(), v.kept.iter().map(|k| k.property.clone()).collect()))
        .collect()
}

/// The configured provider a resource of the stack (or a preview) uses: its provider reference
/// (`urn::id`, or the URN of a default provider a commit creates) and that provider's inputs.
fn instance_for(r: &SourceResource, by_urn: &HashMap<&str, &SourceResource>) -> ProviderInstance {
    let package = r.token.split(':').next().unwrap_or("").to_string();
    let reference = r.provider.clone().unwrap_or_default();
    let provider_urn = ferry_state::urn::split_provider_reference(&reference)
        .map(|(u, _)| u)
        .unwrap_or(&reference);
    let provider = by_urn.get(provider_urn);
    let version = provider.and_then(|p| provider_version(&p.inputs));
    ProviderInstance {
        key: if reference.is_empty() { format!("default:{package}") } else { reference },
        config: provider.map(|p| provider_config(&p.inputs)).unwrap_or_default(),
        package,
        version,
    }
}

/// Verifies every custom resource of `resources` (providers' own resources aside), at most
/// `concurrency` at once. `context` holds the providers they use.
pub async fn verify(
    resources: &[SourceResource],
    context: &[SourceResource],
    schemas: &HashMap<String, PackageSchema>,
    providers: &dyn ProviderSource,
    concurrency: usize,
) -> Vec<Verification> {
    let by_urn: HashMap<&str, &SourceResource> =
        context.iter().chain(resources).map(|r| (r.urn.as_str(), r)).collect();
    let limit = Semaphore::new(concurrency.max(1));
    let checks = resources
        .iter()
        .filter(|r| r.custom && !r.token.starts_with("pulumi:providers:"))
        .map(|r| {
            let (limit, by_urn) = (&limit, &by_urn);
            async move {
                let _permit = limit.acquire().await.expect("the semaphore is never closed");
                let elidable = elidable_inputs(r, schemas);
                match providers.provider(&instance_for(r, by_urn)).await {
                    Ok(provider) => verify_one(r, elidable, provider).await,
                    Err(e) => Verification {
                        urn: r.urn.clone(),
                        name: r.name.clone(),
                        clean: false,
                        kept: Vec::new(),
                        problem: Some(e.to_string()),
                    },
                }
            }
        });
    futures_util::future::join_all(checks).await
}

async fn verify_one(
    r: &SourceResource,
    elidable: Vec<(String, &'static str)>,
    provider: Arc<dyn Provider>,
) -> Verification {
    let mut left_out: BTreeMap<String, &'static str> = elidable.into_iter().collect();
    let mut done = Verification {
        urn: r.urn.clone(),
        name: r.name.clone(),
        clean: false,
        kept: Vec::new(),
        problem: None,
    };
    // Each round puts at least one property back, so this ends.
    loop {
        let news: PropertyMap = r
            .inputs
            .iter()
            .filter(|(k, _)| !k.starts_with("__") && !left_out.contains_key(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let recorded = RecordedResource {
            urn: &r.urn,
            name: &r.name,
            token: &r.token,
            id: r.id.as_deref().unwrap_or_default(),
            inputs: &r.inputs,
            outputs: &r.outputs,
        };
        let (changed, unnamed_change) =
            match inquiry::compare_inputs(provider.as_ref(), recorded, &news).await {
                Ok(Comparison::CheckFailed(failures)) => {
                    done.problem = Some(format!(
                        "the provider's Check fails the code's inputs ({})",
                        failures.join("; ")
                    ));
                    return done;
                }
                Ok(Comparison::Diffed { changed, unnamed_change }) => (changed, unnamed_change),
                Err(ComparisonError::Check(e)) => {
                    done.problem = Some(format!("Check did not run: {e}"));
                    return done;
                }
                Err(ComparisonError::Diff(e)) => {
                    done.problem = Some(format!("Diff did not run: {e}"));
                    return done;
                }
            };
        let back: Vec<String> =
            changed.iter().filter(|k| left_out.contains_key(*k)).cloned().collect();
        if !back.is_empty() {
            for k in back {
                let why = left_out.remove(&k).unwrap_or("");
                done.kept.push(KeptProperty {
                    property: k,
                    why: format!("{why}, but without it the provider's Diff reports a change"),
                });
            }
            continue;
        }
        if !changed.is_empty() {
            let names: Vec<String> = changed.iter().map(|k| format!("`{k}`")).collect();
            done.problem = Some(format!(
                "the provider's Diff reports a change in {} even with the values Read returned",
                names.join(", ")
            ));
        } else if unnamed_change {
            done.problem =
                Some("the provider's Diff reports a change without naming the properties".into());
        } else {
            done.clean = true;
        }
        return done;
    }
}

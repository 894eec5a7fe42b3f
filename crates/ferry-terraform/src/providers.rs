//! Which Pulumi plugin maps each Terraform provider, decided as Pulumi's converters decide it but
//! keyed by the provider's full source address: the plugins an organisation may run say which
//! providers they map (`GetMappings("terraform")`, their claims), and where none claims one,
//! Pulumi's table of bridged packages names the package to try or to install. Pure: the service
//! asks the plugins and hands their answers here.

use std::collections::{BTreeMap, BTreeSet};

use crate::address::ProviderAddress;
use crate::mapping::ProviderMapping;

/// The public registries. OpenTofu's mirrors Terraform's under the same namespaces, so an
/// address on either names the same provider.
const PUBLIC_REGISTRIES: [&str; 2] = ["registry.terraform.io", "registry.opentofu.org"];

/// Pulumi's bridged packages, by the Terraform provider each bridges (`namespace/type` on the
/// public registries, lower case): facts of Pulumi's registry, so that a state whose plugin is
/// not installed still names the package to install (`hashicorp/google` is `gcp`, not `google`).
const BRIDGED: &[(&str, &str)] = &[
    ("hashicorp/aws", "aws"),
    ("hashicorp/azurerm", "azure"),
    ("hashicorp/azuread", "azuread"),
    ("hashicorp/google", "gcp"),
    ("hashicorp/google-beta", "gcp"),
    ("hashicorp/random", "random"),
    ("hashicorp/tls", "tls"),
    ("hashicorp/archive", "archive"),
    ("hashicorp/external", "external"),
    ("hashicorp/http", "http"),
    ("hashicorp/local", "local"),
    ("hashicorp/cloudinit", "cloudinit"),
    ("hashicorp/vault", "vault"),
    ("hashicorp/consul", "consul"),
    ("hashicorp/nomad", "nomad"),
    ("hashicorp/vsphere", "vsphere"),
    ("hashicorp/tfe", "tfe"),
    ("integrations/github", "github"),
    ("gitlabhq/gitlab", "gitlab"),
    ("cloudflare/cloudflare", "cloudflare"),
    ("datadog/datadog", "datadog"),
    ("digitalocean/digitalocean", "digitalocean"),
    ("linode/linode", "linode"),
    ("hetznercloud/hcloud", "hcloud"),
    ("fastly/fastly", "fastly"),
    ("pagerduty/pagerduty", "pagerduty"),
    ("mongodb/mongodbatlas", "mongodbatlas"),
    ("newrelic/newrelic", "newrelic"),
    ("okta/okta", "okta"),
    ("auth0/auth0", "auth0"),
    ("aliyun/alicloud", "alicloud"),
    ("oracle/oci", "oci"),
    ("cyrilgdn/postgresql", "postgresql"),
    ("petoju/mysql", "mysql"),
    // Where these providers lived before their maintainers moved them (older states).
    ("hashicorp/postgresql", "postgresql"),
    ("hashicorp/mysql", "mysql"),
    ("hashicorp/github", "github"),
    ("cyrilgdn/rabbitmq", "rabbitmq"),
    ("mongey/kafka", "kafka"),
    ("snowflake-labs/snowflake", "snowflake"),
    ("databricks/databricks", "databricks"),
    ("microsoft/azuredevops", "azuredevops"),
    ("confluentinc/confluent", "confluentcloud"),
    ("rancher/rancher2", "rancher2"),
    ("akamai/akamai", "akamai"),
    ("splunk-terraform/signalfx", "signalfx"),
    ("splunk/splunk", "splunk"),
    ("sumologic/sumologic", "sumologic"),
    ("opsgenie/opsgenie", "opsgenie"),
    ("ns1-terraform/ns1", "ns1"),
    ("venafi/venafi", "venafi"),
    ("f5networks/bigip", "f5bigip"),
    ("jfrog/artifactory", "artifactory"),
    ("kreuzwerker/docker", "docker"),
    ("terraform-provider-openstack/openstack", "openstack"),
    ("elastic/ec", "ec"),
    ("keycloak/keycloak", "keycloak"),
    ("mrparkers/keycloak", "keycloak"),
    ("spotinst/spotinst", "spotinst"),
    ("rundeck/rundeck", "rundeck"),
    ("grafana/grafana", "grafana"),
    ("minio/minio", "minio"),
    ("civo/civo", "civo"),
    ("scaleway/scaleway", "scaleway"),
    ("yandex-cloud/yandex", "yandex"),
    ("aiven/aiven", "aiven"),
    ("dnsimple/dnsimple", "dnsimple"),
    ("wgebis/mailgun", "mailgun"),
    ("wavefronthq/wavefront", "wavefront"),
    ("tailscale/tailscale", "tailscale"),
    ("cloudamqp/cloudamqp", "cloudamqp"),
];

impl ProviderAddress {
    /// `host/namespace/type`, in lower case as registries compare them, OpenTofu's registry
    /// written as Terraform's (it mirrors the same providers): what mappings are keyed by, so
    /// that `evil/random` never reads with `hashicorp/random`'s mapping.
    pub fn key(&self) -> String {
        let host =
            if self.on_public_registry() { PUBLIC_REGISTRIES[0] } else { self.host.as_str() };
        format!("{host}/{}/{}", self.namespace, self.type_).to_ascii_lowercase()
    }

    fn on_public_registry(&self) -> bool {
        PUBLIC_REGISTRIES.iter().any(|h| h.eq_ignore_ascii_case(&self.host))
    }

    /// The same provider as `other` (on either public registry, or the same private one).
    fn same_provider(&self, other: &ProviderAddress) -> bool {
        let hosts = self.host.eq_ignore_ascii_case(&other.host)
            || (self.on_public_registry() && other.on_public_registry());
        hosts
            && self.namespace.eq_ignore_ascii_case(&other.namespace)
            && self.type_.eq_ignore_ascii_case(&other.type_)
    }

    /// The Pulumi package that bridges this provider, from Pulumi's registry (`hashicorp/google`
    /// → `gcp`); `None` for a provider Pulumi publishes no bridged package of, or one from a
    /// private registry.
    pub fn pulumi_package(&self) -> Option<&'static str> {
        if !self.on_public_registry() {
            return None;
        }
        let source = self.source().to_ascii_lowercase();
        BRIDGED.iter().find(|(s, _)| *s == source).map(|(_, package)| *package)
    }
}

/// One name a plugin's `GetMappings("terraform")` answered: a full source address
/// (`registry.terraform.io/acme/widget`), `namespace/type`, or a bare type (`random`), which is
/// what bridged plugins answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The plugin's package.
    pub package: String,
    /// The name as the plugin gave it: what `GetMapping` is asked with.
    pub name: String,
}

/// How precisely a claim names a provider: the more precise wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Precision {
    Bare,
    Namespaced,
    Full,
}

/// A plugin to ask for one provider's mapping, and the name to ask with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub package: String,
    pub name: String,
}

/// Which plugins to ask for one provider's mapping, in order (the first that answers one is
/// used), or why none may be asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    Ask(Vec<Candidate>),
    Unmapped(String),
}

/// What the service knows of the plugins: those the organisation may run that are installed
/// (`runnable`), and those installed at all.
#[derive(Debug, Clone, Default)]
pub struct Plugins {
    pub runnable: BTreeSet<String>,
    pub installed: BTreeSet<String>,
}

/// Decides, for each of `providers` (by [`ProviderAddress::key`]), which plugins to ask for its
/// mapping: those whose claims name it (the most precise claim first; among equals the package
/// Pulumi's table names, then by name), then the package Pulumi's table names if it runs here
/// and did not claim it (asked with the provider's type, then with its own claims: Pulumi's
/// `gcp` answers for `google-beta`, whose resource types `google` shares). A bare claim names
/// the provider Pulumi's table gives for that type; for a type the table does not know, the one
/// provider of that type in the state (two namespaces of it make the claim ambiguous: neither
/// is mapped by it, and the row says so).
pub fn resolve(
    providers: &[ProviderAddress],
    claims: &[Claim],
    plugins: &Plugins,
) -> BTreeMap<String, Resolution> {
    let mut out = BTreeMap::new();
    for provider in providers {
        let key = provider.key();
        if out.contains_key(&key) {
            continue;
        }
        let known = provider.pulumi_package();
        let mut matched: Vec<(Precision, &Claim)> = Vec::new();
        let mut ambiguous: Vec<&Claim> = Vec::new();
        for claim in claims.iter().filter(|c| plugins.runnable.contains(&c.package)) {
            match claim_names(claim, provider, providers) {
                Some(Ok(precision)) => matched.push((precision, claim)),
                Some(Err(())) => ambiguous.push(claim),
                None => {}
            }
        }
        matched.sort_by(|(pa, a), (pb, b)| {
            pb.cmp(pa)
                .then((Some(b.package.as_str()) == known).cmp(&(Some(a.package.as_str()) == known)))
                .then(a.package.cmp(&b.package))
        });
        let mut ask: Vec<Candidate> = matched
            .iter()
            .map(|(_, c)| Candidate { package: c.package.clone(), name: c.name.clone() })
            .collect();
        if let Some(package) =
            known.filter(|p| plugins.runnable.contains(*p) && !ask.iter().any(|c| c.package == *p))
        {
            ask.push(Candidate { package: package.to_string(), name: provider.type_.clone() });
            for claim in claims.iter().filter(|c| c.package == package && c.name != provider.type_)
            {
                ask.push(Candidate { package: package.to_string(), name: claim.name.clone() });
            }
        }
        let resolution = if !ask.is_empty() {
            Resolution::Ask(ask)
        } else if let Some(claim) = ambiguous.first() {
            let others: Vec<String> = providers
                .iter()
                .filter(|p| p.type_.eq_ignore_ascii_case(&provider.type_))
                .map(|p| format!("`{}`", p.source()))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            Resolution::Unmapped(format!(
                "the `{}` plugin maps a provider named `{}` without saying whose, and this state has {} of that name: it must claim the provider by its source address (`{}`) to be used",
                claim.package,
                claim.name,
                others.join(" and "),
                provider.source()
            ))
        } else {
            Resolution::Unmapped(unmapped_reason(provider, plugins))
        };
        out.insert(key, resolution);
    }
    out
}

/// Whether `claim` names `provider`: how precisely, or `Err` for a bare claim that fits several
/// providers of the state.
fn claim_names(
    claim: &Claim,
    provider: &ProviderAddress,
    providers: &[ProviderAddress],
) -> Option<Result<Precision, ()>> {
    let parts: Vec<&str> = claim.name.trim().split('/').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let named = |host: &str, namespace: &str, type_: &str| ProviderAddress {
        host: host.into(),
        namespace: namespace.into(),
        type_: type_.into(),
        alias: None,
    };
    match parts.as_slice() {
        [host, namespace, type_] => {
            provider.same_provider(&named(host, namespace, type_)).then_some(Ok(Precision::Full))
        }
        [namespace, type_] => provider
            .same_provider(&named(PUBLIC_REGISTRIES[0], namespace, type_))
            .then_some(Ok(Precision::Namespaced)),
        [type_] if provider.type_.eq_ignore_ascii_case(type_) => {
            let bridged: Vec<&str> = BRIDGED
                .iter()
                .map(|(s, _)| *s)
                .filter(|s| s.rsplit('/').next().is_some_and(|t| t.eq_ignore_ascii_case(type_)))
                .collect();
            if !bridged.is_empty() {
                // A name Pulumi's registry knows: the provider it bridges, and no other's.
                let source = provider.source().to_ascii_lowercase();
                return (provider.on_public_registry() && bridged.contains(&source.as_str()))
                    .then_some(Ok(Precision::Bare));
            }
            let mut namesakes: Vec<&ProviderAddress> = Vec::new();
            for p in providers.iter().filter(|p| p.type_.eq_ignore_ascii_case(type_)) {
                if !namesakes.iter().any(|n| n.same_provider(p)) {
                    namesakes.push(p);
                }
            }
            Some(if namesakes.len() == 1 { Ok(Precision::Bare) } else { Err(()) })
        }
        _ => None,
    }
}

/// Why a provider no plugin maps is not imported, and what would import it.
pub fn unmapped_reason(provider: &ProviderAddress, plugins: &Plugins) -> String {
    let source = provider.source();
    match provider.pulumi_package() {
        Some(package) if plugins.runnable.contains(package) => {
            format!("the `{package}` plugin gives no mapping for the Terraform provider `{source}` (it answered none for it)")
        }
        Some(package) if plugins.installed.contains(package) => format!(
            "Pulumi's `{package}` package maps the Terraform provider `{source}`; its plugin is installed, but this organisation does not allow it (an administrator adds `{package}` to the organisation's allowed packages)"
        ),
        Some(package) => format!(
            "Pulumi's `{package}` package maps the Terraform provider `{source}`; its plugin `{}` is not installed (an administrator runs `pulumi plugin install resource {package}` and allows `{package}` for this organisation)",
            plugin_binary(package)
        ),
        None => format!(
            "no plugin this organisation may run maps the Terraform provider `{source}`, and Pulumi publishes no bridged package for it that Ferry knows of: a plugin that claims `{source}` (GetMappings) is needed"
        ),
    }
}

/// The binary of a package's plugin.
pub fn plugin_binary(package: &str) -> String {
    format!("pulumi-resource-{package}")
}

/// The providers' mappings, by full source address ([`ProviderAddress::key`]), each with the
/// package of the plugin that gave it; and, for a provider none maps, why.
#[derive(Debug, Clone, Default)]
pub struct Mappings {
    found: BTreeMap<String, (String, ProviderMapping)>,
    unmapped: BTreeMap<String, String>,
}

impl Mappings {
    /// `provider` maps through `package`'s plugin with `mapping`.
    pub fn insert(&mut self, provider: &ProviderAddress, package: &str, mapping: ProviderMapping) {
        self.unmapped.remove(&provider.key());
        self.found.insert(provider.key(), (package.to_string(), mapping));
    }

    /// No plugin maps `provider`, for `why`.
    pub fn unmapped(&mut self, provider: &ProviderAddress, why: String) {
        if !self.found.contains_key(&provider.key()) {
            self.unmapped.insert(provider.key(), why);
        }
    }

    /// The package and mapping for `provider`.
    pub fn get(&self, provider: &ProviderAddress) -> Option<(&str, &ProviderMapping)> {
        self.found.get(&provider.key()).map(|(p, m)| (p.as_str(), m))
    }

    /// Why `provider` is not mapped.
    pub fn why_unmapped(&self, provider: &ProviderAddress) -> String {
        self.unmapped
            .get(&provider.key())
            .cloned()
            .unwrap_or_else(|| unmapped_reason(provider, &Plugins::default()))
    }

    /// One provider's mapping, the provider named as a state names it (`hashicorp/random`): for
    /// tests and benchmarks.
    pub fn of(source: &str, package: &str, mapping: ProviderMapping) -> Mappings {
        let mut m = Mappings::default();
        m.insert(
            &ProviderAddress::parse(source).expect("a provider source address"),
            package,
            mapping,
        );
        m
    }

    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(source: &str) -> ProviderAddress {
        ProviderAddress::parse(source).unwrap()
    }

    fn claim(package: &str, name: &str) -> Claim {
        Claim { package: package.into(), name: name.into() }
    }

    fn plugins(runnable: &[&str], installed: &[&str]) -> Plugins {
        Plugins {
            runnable: runnable.iter().map(|s| s.to_string()).collect(),
            installed: installed.iter().chain(runnable).map(|s| s.to_string()).collect(),
        }
    }

    fn asked(r: &Resolution) -> Vec<(String, String)> {
        match r {
            Resolution::Ask(c) => c.iter().map(|c| (c.package.clone(), c.name.clone())).collect(),
            Resolution::Unmapped(why) => panic!("unmapped: {why}"),
        }
    }

    #[test]
    fn pulumis_table_names_the_package_never_the_providers_own_name() {
        assert_eq!(address("hashicorp/google").pulumi_package(), Some("gcp"));
        assert_eq!(
            address("registry.opentofu.org/hashicorp/google-beta").pulumi_package(),
            Some("gcp")
        );
        assert_eq!(address("hashicorp/azurerm").pulumi_package(), Some("azure"));
        assert_eq!(
            address("registry.terraform.io/DataDog/datadog").pulumi_package(),
            Some("datadog")
        );
        assert_eq!(address("evil/random").pulumi_package(), None);
        assert_eq!(
            address("example.com/hashicorp/random").pulumi_package(),
            None,
            "a private registry's provider is its own"
        );
        assert_eq!(address("hashicorp/made-up").pulumi_package(), None, "no guess from the name");
    }

    #[test]
    fn a_bare_claim_of_a_known_name_never_reaches_another_namespace() {
        let state = [address("hashicorp/random"), address("evil/random")];
        let r = resolve(&state, &[claim("random", "random")], &plugins(&["random"], &[]));
        assert_eq!(
            asked(&r["registry.terraform.io/hashicorp/random"]),
            [("random".to_string(), "random".to_string())]
        );
        let Resolution::Unmapped(why) = &r["registry.terraform.io/evil/random"] else {
            panic!("evil/random mapped")
        };
        assert!(why.contains("`evil/random`"), "{why}");
        // Unless a plugin claims it by its address.
        let r = resolve(
            &state,
            &[claim("random", "random"), claim("evilrandom", "evil/random")],
            &plugins(&["random", "evilrandom"], &[]),
        );
        assert_eq!(
            asked(&r["registry.terraform.io/evil/random"]),
            [("evilrandom".to_string(), "evil/random".to_string())]
        );
    }

    #[test]
    fn a_plugin_claiming_a_provider_of_another_name_is_found() {
        let state = [address("registry.terraform.io/acme/acmecloud")];
        let r = resolve(
            &state,
            &[claim("acme", "acmecloud"), claim("other", "unrelated")],
            &plugins(&["acme", "other"], &[]),
        );
        assert_eq!(
            asked(&r["registry.terraform.io/acme/acmecloud"]),
            [("acme".to_string(), "acmecloud".to_string())]
        );
        // Two namespaces of the same unknown name: a bare claim fits neither.
        let state = [address("acme/acmecloud"), address("evil/acmecloud")];
        let r = resolve(&state, &[claim("acme", "acmecloud")], &plugins(&["acme"], &[]));
        let Resolution::Unmapped(why) = &r["registry.terraform.io/evil/acmecloud"] else {
            panic!("mapped")
        };
        assert!(
            why.contains("without saying whose")
                && why.contains("`acme/acmecloud` and `evil/acmecloud`"),
            "{why}"
        );
        // A precise claim wins over a bare one, and over Pulumi's table.
        let r = resolve(
            &state,
            &[claim("acme", "acmecloud"), claim("acme2", "registry.opentofu.org/acme/acmecloud")],
            &plugins(&["acme", "acme2"], &[]),
        );
        assert_eq!(
            asked(&r["registry.terraform.io/acme/acmecloud"]),
            [("acme2".to_string(), "registry.opentofu.org/acme/acmecloud".to_string())]
        );
    }

    #[test]
    fn the_known_package_is_asked_when_it_runs_and_claimed_nothing_for_the_provider() {
        let state = [address("hashicorp/google")];
        let r = resolve(&state, &[claim("gcp", "google-beta")], &plugins(&["gcp"], &[]));
        assert_eq!(
            asked(&r["registry.terraform.io/hashicorp/google"]),
            [
                ("gcp".to_string(), "google".to_string()),
                ("gcp".to_string(), "google-beta".to_string())
            ]
        );
        // Claims of plugins the organisation may not run count for nothing.
        let r = resolve(&state, &[claim("gcp", "google")], &plugins(&[], &["gcp"]));
        let Resolution::Unmapped(why) = &r["registry.terraform.io/hashicorp/google"] else {
            panic!("mapped")
        };
        assert!(why.contains("does not allow it"), "{why}");
    }

    #[test]
    fn an_unmapped_row_names_the_package_and_the_plugin_to_install() {
        let why = unmapped_reason(&address("hashicorp/azurerm"), &Plugins::default());
        assert!(
            why.contains("`azure`")
                && why.contains("pulumi-resource-azure")
                && why.contains("pulumi plugin install resource azure"),
            "{why}"
        );
        let why = unmapped_reason(&address("someone/thing"), &Plugins::default());
        assert!(
            why.contains("no bridged package") && !why.contains("pulumi-resource-thing"),
            "{why}"
        );
    }

    #[test]
    fn mappings_are_keyed_by_the_whole_address() {
        let m = Mappings::of("hashicorp/random", "random", crate::testing::random_mapping());
        assert!(
            m.get(&address("registry.opentofu.org/hashicorp/random")).is_some(),
            "OpenTofu's registry mirrors Terraform's"
        );
        assert!(m.get(&address("registry.terraform.io/HashiCorp/random")).is_some());
        assert!(m.get(&address("example.com/hashicorp/random")).is_none());
        assert!(m.get(&address("registry.terraform.io/evil/random")).is_none());
    }
}

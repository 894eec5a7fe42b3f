//! Golden tests: every fixture schema's resources, each input property set, in every
//! language; and a stack-shaped case with a parent component, an explicit provider, a
//! reference, a secret and elision, in both styles.

mod common;

use std::collections::{BTreeSet, HashMap};

use ferry_codegen::{emit, lower, Language, Options, SourceResource, Style};
use ferry_engine::property::{PropertyMap, PropertyValue};

#[test]
fn every_schema_in_every_language() {
    let schemas = common::schemas();
    for package in common::PACKAGES {
        let resources = common::sample_resources(&schemas[package], "fixtures");
        let program = lower("fixtures", &resources, &[], &schemas, &Options { elide: false, ..Default::default() }).unwrap();
        for lang in Language::ALL {
            let code = emit(&program, lang);
            insta::assert_snapshot!(format!("{package}.{}", lang.id()), code);
            assert_eq!(code, emit(&program, lang), "the same program always prints the same bytes");
        }
    }
}

fn s(v: &str) -> PropertyValue {
    PropertyValue::String(v.into())
}

/// A stack like Ferry's demo: a service component (not imported), an explicit provider, and
/// resources under it, one holding a secret, one referring to another by its ID.
pub fn stack_case() -> (Vec<SourceResource>, Vec<SourceResource>) {
    let stack = "urn:pulumi:dev::shop::pulumi:pulumi:Stack::shop-dev";
    let service = "urn:pulumi:dev::shop::ferry:demo:Service::database";
    let provider = "urn:pulumi:dev::shop::pulumi:providers:random::pinned";
    let context = vec![
        SourceResource { urn: stack.into(), name: "shop-dev".into(), token: "pulumi:pulumi:Stack".into(), ..Default::default() },
        SourceResource { urn: service.into(), name: "database".into(), token: "ferry:demo:Service".into(), parent: Some(stack.into()), ..Default::default() },
        SourceResource {
            urn: provider.into(),
            name: "pinned".into(),
            token: "pulumi:providers:random".into(),
            custom: true,
            id: Some("prov-1".into()),
            inputs: PropertyMap::from([("version".into(), s("4.16.0"))]),
            ..Default::default()
        },
    ];
    let child = |name: &str, token: &str, id: &str, inputs: Vec<(&str, PropertyValue)>| SourceResource {
        urn: format!("urn:pulumi:dev::shop::ferry:demo:Service${token}::{name}"),
        name: name.into(),
        token: token.into(),
        custom: true,
        id: Some(id.into()),
        import_id: Some(format!("{id}-import")),
        inputs: inputs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        parent: Some(service.into()),
        provider: Some(format!("{provider}::prov-1")),
        ..Default::default()
    };
    let resources = vec![
        child("database-id", "random:index/randomId:RandomId", "kT3ZqA", vec![("byteLength", PropertyValue::Number(4.0)), ("prefix", s(""))]),
        child(
            "admin-password",
            "random:index/randomPassword:RandomPassword",
            "none",
            vec![
                ("length", PropertyValue::Number(24.0)),
                ("special", PropertyValue::Bool(true)),
                ("overrideSpecial", PropertyValue::Secret(Box::new(s("!#%&")))),
                ("keepers", PropertyValue::Object(PropertyMap::from([("database".into(), s("kT3ZqA"))]))),
            ],
        ),
        child("delete", "random:index/randomPet:RandomPet", "brave-otter", vec![("length", PropertyValue::Number(2.0)), ("separator", s("-")), ("prefix", PropertyValue::Null)]),
    ];
    (resources, context)
}

#[test]
fn a_stack_with_components_providers_references_and_secrets() {
    let schemas: HashMap<_, _> = common::schemas();
    let (resources, context) = stack_case();
    for style in [Style::Cli, Style::CodeFirst] {
        let options = Options { style, elide: true, references: true, ..Default::default() };
        let program = lower("shop", &resources, &context, &schemas, &options).unwrap();
        let style_name = match style {
            Style::Cli => "cli",
            Style::CodeFirst => "code-first",
        };
        insta::assert_json_snapshot!(format!("stack.{style_name}.report"), program.report);
        for lang in Language::ALL {
            let code = emit(&program, lang);
            assert!(!code.contains("!#%&"), "{lang:?}: a secret was written into the code:\n{code}");
            insta::assert_snapshot!(format!("stack.{style_name}.{}", lang.id()), code);
        }
    }
    // Elision per resource, and a reference suggestion turned off.
    let options = Options {
        elide: true,
        keep_all: BTreeSet::from(["database-id".to_string()]),
        references: true,
        reference_exclusions: BTreeSet::from(["admin-password.keepers.database".to_string()]),
        ..Default::default()
    };
    let program = lower("shop", &resources, &context, &schemas, &options).unwrap();
    assert!(program.report.references.is_empty());
    assert!(program.report.elided.iter().all(|e| e.resource != "database-id"));
    let ts = emit(&program, Language::TypeScript);
    assert!(ts.contains("prefix: \"\"") && ts.contains("database: \"kT3ZqA\""), "{ts}");
}

//! Generated YAML loads back through Ferry's own program reader to the same inputs: for every
//! fixture schema's resources, and for random schema types and values (property test).

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use ferry_codegen::schema::{PackageSchema, Type};
use ferry_codegen::{emit, lower, Language, Options, SourceResource};
use ferry_engine::deploy::eval::Scope;
use ferry_engine::program::parse_program;
use ferry_property::{PropertyMap, PropertyValue};
use proptest::prelude::*;
use serde_json::json;

/// Reads the YAML back: each resource's properties, evaluated (secret config from `secrets`).
fn read_back(
    yaml: &str,
    secrets: &HashMap<String, PropertyValue>,
) -> BTreeMap<String, PropertyMap> {
    let program = parse_program("Pulumi.yaml", yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    let scope = Scope {
        stack: "dev".into(),
        project: "p".into(),
        organization: "o".into(),
        config: secrets.clone().into_iter().collect(),
        variables: HashMap::new(),
        resources: HashMap::new(),
        raw_config: Default::default(),
    };
    program
        .resources
        .iter()
        .map(|r| {
            let props = r
                .properties
                .iter()
                .map(|(k, _, e)| (k.clone(), scope.eval(e, &mut BTreeSet::new()).unwrap()))
                .collect();
            (r.name.clone(), props)
        })
        .collect()
}

/// The config values the code reads: each secret's original value.
fn secrets_of(
    program: &ferry_codegen::ir::Program,
    resources: &[SourceResource],
) -> HashMap<String, PropertyValue> {
    program
        .config
        .iter()
        .map(|c| {
            let r = resources.iter().find(|r| r.name == c.resource).unwrap();
            (c.key.clone(), r.inputs[&c.property].clone())
        })
        .collect()
}

#[test]
fn fixture_resources_round_trip_through_yaml() {
    let schemas = common::schemas();
    for package in common::PACKAGES {
        let resources = common::sample_resources(&schemas[package], "fixtures");
        let program = lower("fixtures", &resources, &[], &schemas, &Options::default()).unwrap();
        let yaml = emit(&program, Language::Yaml);
        let back = read_back(&yaml, &secrets_of(&program, &resources));
        for r in &resources {
            assert_eq!(back[&r.name], r.inputs, "{package}: `{}` reads back differently", r.name);
        }
    }
}

fn schema_with(ty: &Type) -> PackageSchema {
    fn to_json(t: &Type) -> serde_json::Value {
        match t {
            Type::String => json!({"type": "string"}),
            Type::Int => json!({"type": "integer"}),
            Type::Number => json!({"type": "number"}),
            Type::Bool => json!({"type": "boolean"}),
            Type::List(i) => json!({"type": "array", "items": to_json(i)}),
            Type::Map(i) => json!({"type": "object", "additionalProperties": to_json(i)}),
            _ => json!({"$ref": "pulumi.json#/Any"}),
        }
    }
    PackageSchema::from_value(&json!({"name": "test", "resources": {"test:index:Thing": {"inputProperties": {"value": to_json(ty)}}}})).unwrap()
}

fn arb_type() -> impl Strategy<Value = Type> {
    let leaf = prop_oneof![
        Just(Type::String),
        Just(Type::Int),
        Just(Type::Number),
        Just(Type::Bool),
        Just(Type::Any)
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|t| Type::List(Box::new(t))),
            inner.prop_map(|t| Type::Map(Box::new(t)))
        ]
    })
}

fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![
        ".*",
        "[a-z]{0,8}",
        Just("${not.a.ref}".to_string()),
        Just("$${x} and $".to_string()),
        Just("line\nbreak\t\"quoted\"".to_string())
    ]
}

fn arb_key() -> impl Strategy<Value = String> {
    arb_string().prop_filter("function keys are calls in Pulumi YAML", |k| !k.starts_with("fn::"))
}

fn arb_value(ty: Type) -> BoxedStrategy<PropertyValue> {
    match ty {
        Type::String => arb_string().prop_map(PropertyValue::String).boxed(),
        Type::Int => {
            (-1_000_000_000i64..1_000_000_000).prop_map(|i| PropertyValue::Number(i as f64)).boxed()
        }
        Type::Number => any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(PropertyValue::Number)
            .boxed(),
        Type::Bool => any::<bool>().prop_map(PropertyValue::Bool).boxed(),
        Type::List(i) => {
            proptest::collection::vec(arb_value(*i), 0..4).prop_map(PropertyValue::Array).boxed()
        }
        Type::Map(i) => proptest::collection::btree_map(arb_key(), arb_value(*i), 0..4)
            .prop_map(PropertyValue::Object)
            .boxed(),
        _ => prop_oneof![
            arb_string().prop_map(PropertyValue::String),
            any::<bool>().prop_map(PropertyValue::Bool),
            (-1000i64..1000).prop_map(|i| PropertyValue::Number(i as f64)),
            proptest::collection::btree_map(
                arb_key(),
                arb_string().prop_map(PropertyValue::String),
                0..3
            )
            .prop_map(PropertyValue::Object),
        ]
        .boxed(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_types_and_values_round_trip_through_yaml((ty, value) in arb_type().prop_flat_map(|t| (Just(t.clone()), arb_value(t)))) {
        let schemas = HashMap::from([("test".to_string(), schema_with(&ty))]);
        let resource = SourceResource {
            urn: "urn:pulumi:dev::p::test:index:Thing::thing".into(),
            name: "thing".into(),
            token: "test:index:Thing".into(),
            custom: true,
            inputs: PropertyMap::from([("value".to_string(), value.clone())]),
            ..Default::default()
        };
        let program = lower("p", &[resource], &[], &schemas, &Options::default()).unwrap();
        let yaml = emit(&program, Language::Yaml);
        let back = read_back(&yaml, &HashMap::new());
        prop_assert_eq!(back["thing"].get("value"), Some(&value), "{}", yaml);
    }
}

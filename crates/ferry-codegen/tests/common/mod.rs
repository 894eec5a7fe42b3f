//! Shared by the code generation tests: the fixture schemas, and resources with a value for
//! every input property, made from the schema itself.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

use ferry_codegen::schema::{PackageSchema, Type};
use ferry_codegen::SourceResource;
use ferry_property::{Asset, AssetSource, PropertyMap, PropertyValue};

pub fn fixtures() -> PathBuf {
    std::env::var_os("FERRY_FIXTURES").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures")
    })
}

pub const PACKAGES: [&str; 4] = ["random", "postgresql", "tls", "command"];

pub fn schemas() -> HashMap<String, PackageSchema> {
    PACKAGES
        .iter()
        .map(|p| {
            let path = fixtures().join(format!("pulumi/schemas/{p}.schema.json"));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (p.to_string(), PackageSchema::parse(&text).unwrap())
        })
        .collect()
}

/// A deterministic value of type `ty` for property `name`.
pub fn sample(ty: &Type, name: &str, schema: &PackageSchema, depth: usize) -> PropertyValue {
    match ty {
        Type::String => PropertyValue::String(format!("{name}-value")),
        Type::Int => PropertyValue::Number(3.0),
        Type::Number => PropertyValue::Number(1.5),
        Type::Bool => PropertyValue::Bool(true),
        Type::Any => PropertyValue::Object(PropertyMap::from([(
            "any".to_string(),
            PropertyValue::String("value".into()),
        )])),
        Type::Asset => {
            PropertyValue::Asset(Asset { hash: None, source: AssetSource::Text("hello".into()) })
        }
        Type::Archive => {
            PropertyValue::Asset(Asset { hash: None, source: AssetSource::Text("archive".into()) })
        }
        Type::List(item) => PropertyValue::Array(vec![sample(item, name, schema, depth + 1)]),
        Type::Map(item) => PropertyValue::Object(PropertyMap::from([(
            "key".to_string(),
            sample(item, name, schema, depth + 1),
        )])),
        Type::Enum(t, _) => PropertyValue::String(
            schema.enums[&t.token][0].value.as_str().unwrap_or("x").to_string(),
        ),
        Type::Object(t) => {
            let mut m = PropertyMap::new();
            if depth < 3 {
                if let Some(obj) = schema.objects.get(&t.token) {
                    for (k, p) in &obj.properties {
                        m.insert(k.clone(), sample(&p.ty, k, schema, depth + 1));
                    }
                }
            }
            PropertyValue::Object(m)
        }
    }
}

/// Every resource of the package, each input set (secret ones as secrets).
pub fn sample_resources(schema: &PackageSchema, project: &str) -> Vec<SourceResource> {
    let mut tokens: Vec<&String> = schema.resources.keys().collect();
    tokens.sort();
    tokens
        .into_iter()
        .enumerate()
        .map(|(n, token)| {
            let r = &schema.resources[token];
            let inputs = r
                .inputs
                .iter()
                .map(|(k, p)| {
                    let v = sample(&p.ty, k, schema, 0);
                    (k.clone(), if p.secret { PropertyValue::Secret(Box::new(v)) } else { v })
                })
                .collect();
            let name =
                format!("{}-{n}", ferry_codegen::names::snake(&r.token.name).replace('_', "-"));
            SourceResource {
                urn: format!("urn:pulumi:dev::{project}::{token}::{name}"),
                name,
                token: token.clone(),
                custom: true,
                id: Some(format!("id-{n}")),
                inputs,
                parent: Some(format!(
                    "urn:pulumi:dev::{project}::pulumi:pulumi:Stack::{project}-dev"
                )),
                ..Default::default()
            }
        })
        .collect()
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
        SourceResource {
            urn: stack.into(),
            name: "shop-dev".into(),
            token: "pulumi:pulumi:Stack".into(),
            ..Default::default()
        },
        SourceResource {
            urn: service.into(),
            name: "database".into(),
            token: "ferry:demo:Service".into(),
            parent: Some(stack.into()),
            ..Default::default()
        },
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
    let child =
        |name: &str, token: &str, id: &str, inputs: Vec<(&str, PropertyValue)>| SourceResource {
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
        child(
            "database-id",
            "random:index/randomId:RandomId",
            "kT3ZqA",
            vec![("byteLength", PropertyValue::Number(4.0)), ("prefix", s(""))],
        ),
        child(
            "admin-password",
            "random:index/randomPassword:RandomPassword",
            "none",
            vec![
                ("length", PropertyValue::Number(24.0)),
                ("special", PropertyValue::Bool(true)),
                ("overrideSpecial", PropertyValue::Secret(Box::new(s("!#%&")))),
                (
                    "keepers",
                    PropertyValue::Object(PropertyMap::from([("database".into(), s("kT3ZqA"))])),
                ),
            ],
        ),
        child(
            "delete",
            "random:index/randomPet:RandomPet",
            "brave-otter",
            vec![
                ("length", PropertyValue::Number(2.0)),
                ("separator", s("-")),
                ("prefix", PropertyValue::Null),
            ],
        ),
    ];
    (resources, context)
}

/// A migrated Terraform state's resources: `count` instances that differ by their key and a
/// per-key value (one loop), `for_each` instances likewise, a `count` pair that differs in
/// shape (no loop), and a resource that refers to one instance and depends on another; some
/// properties set from root variables.
pub fn terraform_case() -> Vec<SourceResource> {
    use ferry_codegen::{Origin, OriginPart};
    let resource =
        |token: &str, address: &str, name: &str, id: &str, inputs: Vec<(&str, PropertyValue)>| {
            let instance = address.rsplit_once('[').map(|(declaration, key)| {
                (declaration.to_string(), key.trim_end_matches(']').trim_matches('"').to_string())
            });
            SourceResource {
                urn: format!("urn:pulumi:dev::migrated::{token}::{name}"),
                name: name.into(),
                token: token.into(),
                custom: true,
                id: Some(id.into()),
                inputs: inputs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                origin: Some(Origin {
                    tool: "Terraform".into(),
                    address: address.into(),
                    instance,
                    references: Vec::new(),
                    variables: Vec::new(),
                    templates: Vec::new(),
                }),
                ..Default::default()
            }
        };
    let n = PropertyValue::Number;
    let pet = "random:index/randomPet:RandomPet";
    let integer = "random:index/randomInteger:RandomInteger";
    let id = "random:index/randomId:RandomId";
    let mut shuffle = resource(
        "random:index/randomShuffle:RandomShuffle",
        "random_shuffle.pick",
        "pick",
        "-",
        vec![
            ("inputs", PropertyValue::Array(vec![s("sharp-ox-0"), s("static")])),
            ("resultCount", n(1.0)),
        ],
    );
    shuffle.depends_on =
        vec!["urn:pulumi:dev::migrated::random:index/randomPet:RandomPet::pets-1".into()];
    let mut resources = vec![
        resource(
            pet,
            "random_pet.pets[0]",
            "pets-0",
            "sharp-ox-0",
            vec![("length", n(2.0)), ("prefix", s("pet-0")), ("separator", s("-"))],
        ),
        resource(
            pet,
            "random_pet.pets[1]",
            "pets-1",
            "calm-eel-1",
            vec![("length", n(3.0)), ("prefix", s("pet-1")), ("separator", s("-"))],
        ),
        resource(
            pet,
            "random_pet.pets[2]",
            "pets-2",
            "bold-yak-2",
            vec![("length", n(2.0)), ("prefix", s("pet-2")), ("separator", s("-"))],
        ),
        resource(
            integer,
            "module.net.random_integer.ports[\"web\"]",
            "ports-web",
            "1234",
            vec![("min", n(1000.0)), ("max", n(2000.0)), ("seed", s("web-seed"))],
        ),
        resource(
            integer,
            "module.net.random_integer.ports[\"db\"]",
            "ports-db",
            "5432",
            vec![("min", n(1000.0)), ("max", n(6000.0)), ("seed", s("db-seed"))],
        ),
        resource(id, "random_id.ids[0]", "ids-0", "AAAA", vec![("byteLength", n(4.0))]),
        resource(
            id,
            "random_id.ids[1]",
            "ids-1",
            "BBBBBBBB",
            vec![
                ("byteLength", n(8.0)),
                (
                    "keepers",
                    PropertyValue::Object(PropertyMap::from([
                        ("owner".to_string(), s("ops")),
                        ("label".to_string(), s(LABEL)),
                    ])),
                ),
            ],
        ),
        shuffle,
    ];
    // Root variables: one text every pet shares (a schema default, kept as written), one
    // number both ports share, one the two IDs disagree on (the second keeps its value).
    for (name, property, variable) in [
        ("pets-0", "separator", "separator"),
        ("pets-1", "separator", "separator"),
        ("pets-2", "separator", "separator"),
        ("ports-web", "min", "port_min"),
        ("ports-db", "min", "port_min"),
        ("pick", "resultCount", "pick_count"),
        ("ids-0", "byteLength", "id_bytes"),
        ("ids-1", "byteLength", "id_bytes"),
    ] {
        let r = resources.iter_mut().find(|r| r.name == name).unwrap();
        r.origin.as_mut().unwrap().variables.push(ferry_codegen::OriginVariable {
            property: property.into(),
            name: variable.into(),
        });
    }
    // A template of text every language escapes, a variable and a loop's instance.
    let ids = resources.iter_mut().find(|r| r.name == "ids-1").unwrap();
    ids.origin.as_mut().unwrap().templates.push(ferry_codegen::OriginTemplate {
        property: "keepers".into(),
        key: Some("label".into()),
        parts: vec![
            OriginPart::Text(LABEL_TEXT.into()),
            OriginPart::Variable { name: "team".into(), text: "ops".into() },
            OriginPart::Text("/".into()),
            OriginPart::Reference { target: "ports-web".into(), target_property: "result".into() },
        ],
    });
    resources
}

/// The text of the Terraform case's template: what each language must escape in its own way.
pub const LABEL_TEXT: &str = "a`{b}%c${d}\"\\-";
/// The value the template makes in that case.
pub const LABEL: &str = "a`{b}%c${d}\"\\-ops/1234";

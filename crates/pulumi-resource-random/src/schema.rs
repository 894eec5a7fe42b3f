//! The package schema, built from one table of resources and properties. Type tokens, property
//! names, required lists and secret flags match Pulumi's `random` package (so programs and SDKs
//! written for `@pulumi/random` work unchanged); the descriptions are Ferry's own.

use serde_json::{json, Map, Value};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Int,
    Bool,
    Str,
    StrMap,
    StrList,
}

/// One property: `input` says whether programs set it (every property is an output).
pub struct Prop {
    pub name: &'static str,
    pub ty: Ty,
    pub input: bool,
    pub required_input: bool,
    pub secret: bool,
    pub description: &'static str,
    pub deprecated: Option<&'static str>,
}

pub struct Resource {
    pub token: &'static str,
    pub description: &'static str,
    pub props: Vec<Prop>,
    pub required_outputs: &'static [&'static str],
}

const fn p(
    name: &'static str,
    ty: Ty,
    input: bool,
    required_input: bool,
    secret: bool,
    description: &'static str,
) -> Prop {
    Prop { name, ty, input, required_input, secret, description, deprecated: None }
}

const KEEPERS: &str = "Arbitrary values that, when changed, make the provider generate a new value (the resource is replaced).";

fn charset_props(result_secret: bool) -> Vec<Prop> {
    vec![
        p("keepers", Ty::StrMap, true, false, false, KEEPERS),
        p("length", Ty::Int, true, true, false, "How many characters the result has."),
        p(
            "lower",
            Ty::Bool,
            true,
            false,
            false,
            "Whether lowercase letters may appear. Default: true.",
        ),
        p(
            "upper",
            Ty::Bool,
            true,
            false,
            false,
            "Whether uppercase letters may appear. Default: true.",
        ),
        p("numeric", Ty::Bool, true, false, false, "Whether digits may appear. Default: true."),
        Prop {
            deprecated: Some("Use `numeric` instead."),
            ..p("number", Ty::Bool, true, false, false, "Older name of `numeric`.")
        },
        p(
            "special",
            Ty::Bool,
            true,
            false,
            false,
            "Whether special characters may appear. Default: true.",
        ),
        p(
            "minLower",
            Ty::Int,
            true,
            false,
            false,
            "At least this many lowercase letters. Default: 0.",
        ),
        p(
            "minUpper",
            Ty::Int,
            true,
            false,
            false,
            "At least this many uppercase letters. Default: 0.",
        ),
        p("minNumeric", Ty::Int, true, false, false, "At least this many digits. Default: 0."),
        p(
            "minSpecial",
            Ty::Int,
            true,
            false,
            false,
            "At least this many special characters. Default: 0.",
        ),
        p(
            "overrideSpecial",
            Ty::Str,
            true,
            false,
            false,
            "The special characters to use instead of the default set `!@#$%&*()-_=+[]{}<>:?`.",
        ),
        p("result", Ty::Str, false, false, result_secret, "The generated value."),
    ]
}

pub fn resources() -> Vec<Resource> {
    let uuid = |token, description| Resource {
        token,
        description,
        props: vec![
            p("keepers", Ty::StrMap, true, false, false, KEEPERS),
            p("result", Ty::Str, false, false, false, "The generated UUID."),
        ],
        required_outputs: &["result"],
    };
    let mut password = charset_props(true);
    password.push(p("bcryptHash", Ty::Str, false, false, true, "A bcrypt hash of the result."));
    vec![
        Resource {
            token: "random:index/randomBytes:RandomBytes",
            description: "Random bytes, as base64 and hex. Import with the bytes as a base64 string as the ID.",
            props: vec![
                p("keepers", Ty::StrMap, true, false, false, KEEPERS),
                p("length", Ty::Int, true, true, false, "How many bytes to generate."),
                p("base64", Ty::Str, false, false, true, "The bytes, base64-encoded."),
                p("hex", Ty::Str, false, false, true, "The bytes, hex-encoded."),
            ],
            required_outputs: &["base64", "hex", "length"],
        },
        Resource {
            token: "random:index/randomId:RandomId",
            description: "A random identifier in several encodings, for unique names. Import with `<b64Url>` or `<prefix>,<b64Url>` as the ID.",
            props: vec![
                p("keepers", Ty::StrMap, true, false, false, KEEPERS),
                p("byteLength", Ty::Int, true, true, false, "How many random bytes the identifier has."),
                p("prefix", Ty::Str, true, false, false, "Text put before every encoding (not before `id`)."),
                p("b64Std", Ty::Str, false, false, false, "The identifier, standard base64 with padding, after the prefix."),
                p("b64Url", Ty::Str, false, false, false, "The identifier, URL-safe base64 without padding, after the prefix."),
                p("dec", Ty::Str, false, false, false, "The identifier as a decimal number, after the prefix."),
                p("hex", Ty::Str, false, false, false, "The identifier, hex-encoded, after the prefix."),
            ],
            required_outputs: &["b64Std", "b64Url", "byteLength", "dec", "hex"],
        },
        Resource {
            token: "random:index/randomInteger:RandomInteger",
            description: "A random integer between `min` and `max`, inclusive. Import with `<result>,<min>,<max>[,<seed>]` as the ID.",
            props: vec![
                p("keepers", Ty::StrMap, true, false, false, KEEPERS),
                p("min", Ty::Int, true, true, false, "The smallest possible value."),
                p("max", Ty::Int, true, true, false, "The largest possible value."),
                p("seed", Ty::Str, true, false, false, "Makes the result repeatable: the same seed, min and max give the same result."),
                p("result", Ty::Int, false, false, false, "The generated integer."),
            ],
            required_outputs: &["max", "min", "result"],
        },
        Resource {
            token: "random:index/randomPassword:RandomPassword",
            description: "A random password, kept secret in state, with a bcrypt hash. Import with the password as the ID.",
            props: password,
            required_outputs: &[
                "bcryptHash",
                "length",
                "lower",
                "minLower",
                "minNumeric",
                "minSpecial",
                "minUpper",
                "number",
                "numeric",
                "result",
                "special",
                "upper",
            ],
        },
        Resource {
            token: "random:index/randomPet:RandomPet",
            description: "A random pet name of words, such as `brave-otter`. It has no external ID, so it cannot be imported.",
            props: vec![
                p("keepers", Ty::StrMap, true, false, false, KEEPERS),
                p("length", Ty::Int, true, false, false, "How many words. Default: 2."),
                p("prefix", Ty::Str, true, false, false, "A word put first."),
                p("separator", Ty::Str, true, false, false, "What joins the words. Default: `-`."),
            ],
            required_outputs: &["length", "separator"],
        },
        Resource {
            token: "random:index/randomShuffle:RandomShuffle",
            description: "A random permutation of a list of strings. It has no external ID, so it cannot be imported.",
            props: vec![
                p("keepers", Ty::StrMap, true, false, false, KEEPERS),
                p("inputs", Ty::StrList, true, true, false, "The strings to shuffle."),
                p("resultCount", Ty::Int, true, false, false, "How many strings to return. Default: all of them."),
                p("seed", Ty::Str, true, false, false, "Makes the order repeatable."),
                p("results", Ty::StrList, false, false, false, "The shuffled strings."),
            ],
            required_outputs: &["inputs", "results"],
        },
        Resource {
            token: "random:index/randomString:RandomString",
            description: "A random string (not secret; use RandomPassword for secrets). Import with the string as the ID.",
            props: charset_props(false),
            required_outputs: &["length", "lower", "minLower", "minNumeric", "minSpecial", "minUpper", "number", "numeric", "result", "special", "upper"],
        },
        uuid("random:index/randomUuid4:RandomUuid4", "A random version 4 UUID. Import with the UUID as the ID."),
        uuid("random:index/randomUuid7:RandomUuid7", "A time-ordered version 7 UUID. Import with the UUID as the ID."),
        uuid("random:index/randomUuid:RandomUuid", "A random UUID. Import with the UUID as the ID."),
    ]
}

fn type_spec(ty: Ty) -> Value {
    match ty {
        Ty::Int => json!({"type": "integer"}),
        Ty::Bool => json!({"type": "boolean"}),
        Ty::Str => json!({"type": "string"}),
        Ty::StrMap => json!({"type": "object", "additionalProperties": {"type": "string"}}),
        Ty::StrList => json!({"type": "array", "items": {"type": "string"}}),
    }
}

fn property_spec(prop: &Prop) -> Value {
    let mut spec = type_spec(prop.ty);
    spec["description"] = json!(prop.description);
    if prop.secret {
        spec["secret"] = json!(true);
    }
    if let Some(d) = prop.deprecated {
        spec["deprecationMessage"] = json!(d);
    }
    spec
}

/// What each type's import ID is made of, stated in the schema (`language.ferry.importId`) so
/// Ferry identifies existing resources without reading the descriptions' prose. Pets and
/// shuffles have no external ID.
pub fn import_id(token: &str) -> Option<&'static str> {
    Some(match token.rsplit(':').next()? {
        "RandomBytes" => "<base64>",
        "RandomId" => "<b64Url>",
        "RandomInteger" => "<result>,<min>,<max>",
        "RandomPassword" | "RandomString" | "RandomUuid" | "RandomUuid4" | "RandomUuid7" => {
            "<result>"
        }
        _ => return None,
    })
}

/// The schema JSON `GetSchema` returns.
pub fn schema(version: &str) -> String {
    let mut by_token = Map::new();
    for r in resources() {
        let props: Map<String, Value> =
            r.props.iter().map(|p| (p.name.to_string(), property_spec(p))).collect();
        let inputs: Map<String, Value> = r
            .props
            .iter()
            .filter(|p| p.input)
            .map(|p| (p.name.to_string(), property_spec(p)))
            .collect();
        let required_inputs: Vec<&str> =
            r.props.iter().filter(|p| p.required_input).map(|p| p.name).collect();
        let mut spec = json!({"description": r.description, "properties": props, "required": r.required_outputs,
                   "inputProperties": inputs, "requiredInputs": required_inputs});
        if let Some(template) = import_id(r.token) {
            spec["language"] = json!({"ferry": {"importId": template}});
        }
        by_token.insert(r.token.to_string(), spec);
    }
    json!({
        "name": "random",
        "displayName": "random",
        "version": version,
        "description": "Randomness for Pulumi programs: passwords, strings, identifiers, integers, pets, shuffles and UUIDs.",
        "keywords": ["pulumi", "random", "category/utility"],
        "license": "Apache-2.0",
        "meta": {"moduleFormat": "(.*)(?:/[^/]*)"},
        "language": {
            "nodejs": {"packageName": "@pulumi/random"},
            "python": {"packageName": "pulumi_random"},
            "go": {"importBasePath": "github.com/pulumi/pulumi-random/sdk/v4/go/random", "generateResourceContainerTypes": true},
            "csharp": {"rootNamespace": "Pulumi", "namespaces": {"random": "Random"}}
        },
        "config": {},
        "provider": {"description": "The provider for the random package; it takes no configuration."},
        "resources": by_token,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    /// Each type that can be imported states its import ID, read by Ferry's reader as it is,
    /// every part a property of the type; pets and shuffles state none.
    #[test]
    fn importable_types_state_their_import_id_of_their_own_properties() {
        let schema: serde_json::Value = serde_json::from_str(&super::schema("4.0.0")).unwrap();
        let recipes = ferry_engine::recipes::recipes(&schema);
        assert_eq!(
            recipes.len(),
            super::resources().len() - 2,
            "all but RandomPet and RandomShuffle"
        );
        assert_eq!(
            recipes["random:index/randomInteger:RandomInteger"].template(),
            "<result>,<min>,<max>"
        );
        for (token, recipe) in &recipes {
            for p in recipe.properties() {
                assert!(schema["resources"][token]["properties"].get(p).is_some(), "{token}: {p}");
            }
        }
    }
}

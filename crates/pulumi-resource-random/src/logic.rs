//! What each resource does, on plain JSON maps (secrets already unwrapped): defaults and
//! validation (`check`), import by ID (`import`), generation (`create`) and which inputs force a
//! replacement (`diff`: all of them, as in Pulumi's random package).

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Map, Value};

use crate::schema::{resources, Ty};

pub type Props = Map<String, Value>;

pub const DEFAULT_SPECIAL: &str = "!@#$%&*()-_=+[]{}<>:?";
/// Pulumi's wire value for a value not known yet (in a preview).
pub const UNKNOWN: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

fn is_unknown(v: &Value) -> bool {
    v.as_str() == Some(UNKNOWN)
}
const BCRYPT_COST: u32 = 10;

/// The short name of a token (`RandomPassword` for `random:index/randomPassword:RandomPassword`).
fn kind(token: &str) -> &str {
    token.rsplit(':').next().unwrap_or(token)
}

fn int(p: &Props, k: &str) -> Option<i64> {
    p.get(k).and_then(|v| {
        v.as_i64().or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
    })
}

fn boolean(p: &Props, k: &str) -> Option<bool> {
    p.get(k).and_then(Value::as_bool)
}

/// Adds defaults and returns the failures (property, reason).
pub fn check(token: &str, news: &Props) -> Result<(Props, Vec<(String, String)>), String> {
    let spec = resources()
        .into_iter()
        .find(|r| r.token == token)
        .ok_or_else(|| format!("unknown resource type `{token}`"))?;
    let mut inputs = news.clone();
    let mut failures = Vec::new();
    // Types and required inputs, from the schema.
    for prop in spec.props.iter().filter(|p| p.input) {
        match inputs.get(prop.name) {
            None | Some(Value::Null) => {
                if prop.required_input {
                    failures.push((prop.name.to_string(), format!("`{}` is required", prop.name)));
                }
            }
            // Not known until another resource exists: passed through, checked then.
            Some(v) if is_unknown(v) => {}
            Some(v) => {
                let ok = match prop.ty {
                    Ty::Int => v.as_i64().is_some() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
                    Ty::Bool => v.is_boolean(),
                    Ty::Str => v.is_string(),
                    Ty::StrMap => v.as_object().is_some_and(|m| m.values().all(Value::is_string)),
                    Ty::StrList => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
                };
                if !ok {
                    failures.push((
                        prop.name.to_string(),
                        format!("`{}` has the wrong type: {v}", prop.name),
                    ));
                }
            }
        }
    }
    let unknown: Vec<String> = inputs
        .keys()
        .filter(|k| !spec.props.iter().any(|p| p.input && p.name == k.as_str()))
        .cloned()
        .collect();
    for k in unknown {
        failures.push((k.clone(), format!("`{k}` is not an input of {}", kind(token))));
    }
    if !failures.is_empty() {
        return Ok((inputs, failures));
    }
    // Rules between values wait until every value they read is known.
    if inputs.values().any(is_unknown) {
        return Ok((inputs, failures));
    }
    match kind(token) {
        "RandomPassword" | "RandomString" => {
            for flag in ["lower", "upper", "special"] {
                inputs.entry(flag).or_insert(json!(true));
            }
            // `number` is the older name of `numeric`: one given sets the other; both given
            // must agree (as the real provider's plan modifier has it).
            if let (Some(number), Some(numeric)) =
                (boolean(news, "number"), boolean(news, "numeric"))
            {
                if number != numeric {
                    failures
                        .push(("numeric".into(), format!("`number` ({number}) and `numeric` ({numeric}) must agree: `number` is the older name of `numeric`")));
                }
            }
            let numeric =
                boolean(&inputs, "numeric").or(boolean(&inputs, "number")).unwrap_or(true);
            inputs.insert("numeric".into(), json!(numeric));
            inputs.insert("number".into(), json!(numeric));
            for min in ["minLower", "minUpper", "minNumeric", "minSpecial"] {
                inputs.entry(min).or_insert(json!(0));
            }
            let length = int(&inputs, "length").unwrap_or(0);
            if length < 1 {
                failures.push(("length".into(), "`length` must be at least 1".into()));
            }
            let mins: i64 = ["minLower", "minUpper", "minNumeric", "minSpecial"]
                .iter()
                .filter_map(|k| int(&inputs, k))
                .sum();
            if mins > length {
                failures.push((
                    "length".into(),
                    format!("`length` ({length}) is less than the minimums' sum ({mins})"),
                ));
            }
            if ["lower", "upper", "numeric", "special"]
                .iter()
                .all(|k| boolean(&inputs, k) == Some(false))
            {
                failures.push(("special".into(), "no characters are allowed: enable at least one of lower, upper, numeric, special".into()));
            }
        }
        "RandomBytes" | "RandomId" => {
            let key = if kind(token) == "RandomBytes" { "length" } else { "byteLength" };
            if int(&inputs, key).unwrap_or(0) < 1 {
                failures.push((key.into(), format!("`{key}` must be at least 1")));
            }
        }
        "RandomInteger" => {
            if let (Some(min), Some(max)) = (int(&inputs, "min"), int(&inputs, "max")) {
                if min > max {
                    failures.push((
                        "min".into(),
                        format!("`min` ({min}) is greater than `max` ({max})"),
                    ));
                }
            }
        }
        "RandomPet" => {
            inputs.entry("length").or_insert(json!(2));
            inputs.entry("separator").or_insert(json!("-"));
            if int(&inputs, "length").unwrap_or(0) < 1 {
                failures.push(("length".into(), "`length` must be at least 1".into()));
            }
        }
        "RandomShuffle" if int(&inputs, "resultCount").is_some_and(|n| n < 0) => {
            failures.push(("resultCount".into(), "`resultCount` must not be negative".into()));
        }
        _ => {}
    }
    Ok((inputs, failures))
}

/// Reads an existing value from its import ID: (resource ID, inputs, outputs).
pub fn import(token: &str, id: &str) -> Result<(String, Props, Props), String> {
    let obj = |v: Value| v.as_object().cloned().expect("an object literal");
    match kind(token) {
        "RandomPassword" | "RandomString" => {
            // The value itself; its length in bytes, as the real provider counts it.
            let length = id.len();
            let inputs = obj(
                json!({"length": length, "lower": true, "upper": true, "numeric": true, "number": true,
                "special": true, "minLower": 0, "minUpper": 0, "minNumeric": 0, "minSpecial": 0}),
            );
            let mut outputs = inputs.clone();
            outputs.insert("result".into(), json!(id));
            if kind(token) == "RandomPassword" {
                let hash = bcrypt::hash(id, BCRYPT_COST).map_err(|e| format!("bcrypt: {e}"))?;
                outputs.insert("bcryptHash".into(), json!(hash));
                // Passwords are not identified by their value: the ID is a fixed word.
                return Ok(("none".into(), inputs, outputs));
            }
            Ok((id.to_string(), inputs, outputs))
        }
        "RandomBytes" => {
            let bytes = STANDARD
                .decode(id)
                .map_err(|e| format!("the ID must be the bytes in base64: {e}"))?;
            let inputs = obj(json!({"length": bytes.len()}));
            let outputs = obj(
                json!({"length": bytes.len(), "base64": STANDARD.encode(&bytes), "hex": hex(&bytes)}),
            );
            // The bytes are secret, so they cannot be the ID (as for passwords).
            Ok(("none".to_string(), inputs, outputs))
        }
        "RandomId" => {
            // The prefix may hold commas itself: it ends at the last one.
            let (prefix, b64) = match id.rsplit_once(',') {
                Some((prefix, b64)) => (prefix, b64),
                None => ("", id),
            };
            let bytes = URL_SAFE_NO_PAD
                .decode(b64)
                .map_err(|e| format!("the ID must be `<b64Url>` or `<prefix>,<b64Url>`: {e}"))?;
            let mut inputs = obj(json!({"byteLength": bytes.len()}));
            if !prefix.is_empty() {
                inputs.insert("prefix".into(), json!(prefix));
            }
            let mut outputs = inputs.clone();
            outputs.extend(id_encodings(prefix, &bytes));
            Ok((b64.to_string(), inputs, outputs))
        }
        "RandomInteger" => {
            let parts: Vec<&str> = id.split(',').collect();
            if !(3..=4).contains(&parts.len()) {
                return Err(
                    "the ID must be `<result>,<min>,<max>` or `<result>,<min>,<max>,<seed>`".into(),
                );
            }
            let num = |s: &str, what: &str| {
                s.trim().parse::<i64>().map_err(|_| format!("{what} `{s}` is not an integer"))
            };
            // As the real provider: no range check, and the ID stays as given (`007`).
            let (result, min, max) =
                (num(parts[0], "result")?, num(parts[1], "min")?, num(parts[2], "max")?);
            let mut inputs = obj(json!({"min": min, "max": max}));
            if let Some(seed) = parts.get(3) {
                inputs.insert("seed".into(), json!(seed));
            }
            let mut outputs = inputs.clone();
            outputs.insert("result".into(), json!(result));
            Ok((parts[0].to_string(), inputs, outputs))
        }
        "RandomUuid" | "RandomUuid4" | "RandomUuid7" => {
            // Any valid UUID, whatever its version, as the real provider takes it.
            let parsed =
                uuid::Uuid::parse_str(id).map_err(|e| format!("`{id}` is not a UUID: {e}"))?;
            let value = parsed.hyphenated().to_string();
            Ok((value.clone(), Props::new(), obj(json!({"result": value}))))
        }
        "RandomPet" | "RandomShuffle" => Err(format!(
            "{} cannot be imported: its value is generated and has no external ID",
            kind(token)
        )),
        _ => Err(format!("unknown resource type `{token}`")),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes as an unsigned big-endian integer, in decimal.
fn decimal(bytes: &[u8]) -> String {
    let mut digits = vec![0u8]; // little-endian base-10 digits
    for &byte in bytes {
        let mut carry = byte as u32;
        for d in digits.iter_mut() {
            let v = *d as u32 * 256 + carry;
            *d = (v % 10) as u8;
            carry = v / 10;
        }
        while carry > 0 {
            digits.push((carry % 10) as u8);
            carry /= 10;
        }
    }
    digits.iter().rev().map(|d| char::from(b'0' + d)).collect()
}

fn id_encodings(prefix: &str, bytes: &[u8]) -> Props {
    let mut out = Props::new();
    out.insert("b64Std".into(), json!(format!("{prefix}{}", STANDARD.encode(bytes))));
    out.insert("b64Url".into(), json!(format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes))));
    out.insert("hex".into(), json!(format!("{prefix}{}", hex(bytes))));
    out.insert("dec".into(), json!(format!("{prefix}{}", decimal(bytes))));
    out
}

const ADJECTIVES: &[&str] = &[
    "able", "amber", "brave", "bright", "calm", "clever", "cosmic", "crisp", "daring", "eager",
    "fair", "fleet", "gentle", "glad", "golden", "grand", "happy", "honest", "jolly", "keen",
    "kind", "lively", "loyal", "lucky", "mellow", "merry", "mighty", "modest", "noble", "polite",
    "proud", "quick", "quiet", "rapid", "sharp", "shy", "smart", "solid", "steady", "sunny",
    "swift", "tidy", "vivid", "warm", "wise", "witty", "young", "zesty",
];
const ANIMALS: &[&str] = &[
    "badger", "beaver", "bison", "crane", "dolphin", "eagle", "falcon", "ferret", "finch", "fox",
    "gecko", "heron", "ibex", "jackal", "koala", "lemur", "lynx", "marmot", "mole", "newt",
    "ocelot", "orca", "otter", "owl", "panda", "puffin", "quail", "raven", "robin", "salmon",
    "seal", "sloth", "stork", "swan", "tapir", "tiger", "toad", "trout", "turtle", "viper",
    "walrus", "weasel", "whale", "wolf", "wombat", "yak", "zebra",
];

/// What a preview's Create answers: the inputs, and every computed output unknown (nothing is
/// generated until the resource is really created).
pub fn preview_outputs(token: &str, inputs: &Props) -> Result<Props, String> {
    let spec = resources()
        .into_iter()
        .find(|r| r.token == token)
        .ok_or_else(|| format!("unknown resource type `{token}`"))?;
    let mut outputs = inputs.clone();
    for prop in spec.props.iter().filter(|p| !p.input) {
        outputs.insert(prop.name.to_string(), json!(UNKNOWN));
    }
    Ok(outputs)
}

/// Generates a new value: (resource ID, outputs).
pub fn create(token: &str, inputs: &Props) -> Result<(String, Props), String> {
    let mut rng = rand::rng();
    let mut outputs = inputs.clone();
    let id = match kind(token) {
        "RandomPassword" | "RandomString" => {
            let length = int(inputs, "length").unwrap_or(0).max(0) as usize;
            let special = inputs
                .get("overrideSpecial")
                .and_then(Value::as_str)
                .unwrap_or(DEFAULT_SPECIAL)
                .to_string();
            let sets: Vec<(&str, String, usize)> = [
                ("lower", ('a'..='z').collect::<String>(), "minLower"),
                ("upper", ('A'..='Z').collect(), "minUpper"),
                ("numeric", ('0'..='9').collect(), "minNumeric"),
                ("special", special, "minSpecial"),
            ]
            .into_iter()
            .filter(|(flag, chars, _)| boolean(inputs, flag) != Some(false) && !chars.is_empty())
            .map(|(flag, chars, min)| (flag, chars, int(inputs, min).unwrap_or(0).max(0) as usize))
            .collect();
            let all: Vec<char> = sets.iter().flat_map(|(_, c, _)| c.chars()).collect();
            if all.is_empty() {
                return Err("no characters are allowed".into());
            }
            let mut chars: Vec<char> = Vec::with_capacity(length);
            for (_, set, min) in &sets {
                let set: Vec<char> = set.chars().collect();
                chars.extend((0..*min).map(|_| set[rng.random_range(0..set.len())]));
            }
            while chars.len() < length {
                chars.push(all[rng.random_range(0..all.len())]);
            }
            chars.shuffle(&mut rng);
            let result: String = chars.into_iter().collect();
            outputs.insert("result".into(), json!(result));
            if kind(token) == "RandomPassword" {
                outputs.insert(
                    "bcryptHash".into(),
                    json!(bcrypt::hash(&result, BCRYPT_COST).map_err(|e| e.to_string())?),
                );
                "none".to_string()
            } else {
                result
            }
        }
        "RandomBytes" => {
            let mut bytes = vec![0u8; int(inputs, "length").unwrap_or(0).max(0) as usize];
            rng.fill(bytes.as_mut_slice());
            outputs.insert("base64".into(), json!(STANDARD.encode(&bytes)));
            outputs.insert("hex".into(), json!(hex(&bytes)));
            "none".to_string()
        }
        "RandomId" => {
            let mut bytes = vec![0u8; int(inputs, "byteLength").unwrap_or(0).max(0) as usize];
            rng.fill(bytes.as_mut_slice());
            let prefix = inputs.get("prefix").and_then(Value::as_str).unwrap_or("");
            outputs.extend(id_encodings(prefix, &bytes));
            URL_SAFE_NO_PAD.encode(&bytes)
        }
        "RandomInteger" => {
            let (min, max) = (int(inputs, "min").unwrap_or(0), int(inputs, "max").unwrap_or(0));
            let result = match inputs.get("seed").and_then(Value::as_str) {
                Some(seed) => {
                    rand::rngs::StdRng::seed_from_u64(seed_of(seed)).random_range(min..=max)
                }
                None => rng.random_range(min..=max),
            };
            outputs.insert("result".into(), json!(result));
            result.to_string()
        }
        "RandomPet" => {
            let length = int(inputs, "length").unwrap_or(2).max(1) as usize;
            let separator = inputs.get("separator").and_then(Value::as_str).unwrap_or("-");
            let mut words: Vec<&str> =
                (1..length).map(|_| ADJECTIVES[rng.random_range(0..ADJECTIVES.len())]).collect();
            words.push(ANIMALS[rng.random_range(0..ANIMALS.len())]);
            let name = words.join(separator);
            match inputs.get("prefix").and_then(Value::as_str) {
                Some(prefix) => format!("{prefix}{separator}{name}"),
                None => name,
            }
        }
        "RandomShuffle" => {
            let mut items: Vec<Value> =
                inputs.get("inputs").and_then(Value::as_array).cloned().unwrap_or_default();
            match inputs.get("seed").and_then(Value::as_str) {
                Some(seed) => items.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed_of(seed))),
                None => items.shuffle(&mut rng),
            }
            if let Some(n) = int(inputs, "resultCount") {
                items.truncate(n.max(0) as usize);
            }
            outputs.insert("results".into(), Value::Array(items));
            "-".to_string()
        }
        "RandomUuid" | "RandomUuid4" => {
            let u = uuid::Uuid::new_v4().hyphenated().to_string();
            outputs.insert("result".into(), json!(u));
            u
        }
        "RandomUuid7" => {
            let u = uuid::Uuid::now_v7().hyphenated().to_string();
            outputs.insert("result".into(), json!(u));
            u
        }
        _ => return Err(format!("unknown resource type `{token}`")),
    };
    Ok((id, outputs))
}

/// A stable 64-bit seed from a seed string (FNV-1a).
fn seed_of(seed: &str) -> u64 {
    seed.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}

/// The inputs whose change replaces the resource (every input differs → replace).
pub fn diff(token: &str, olds: &Props, news: &Props) -> Vec<String> {
    let Some(spec) = resources().into_iter().find(|r| r.token == token) else { return Vec::new() };
    spec.props
        .iter()
        .filter(|p| p.input)
        .filter(|p| !same(olds.get(p.name), news.get(p.name)))
        .map(|p| p.name.to_string())
        .collect()
}

fn same(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => x.as_f64() == y.as_f64(),
        (None | Some(Value::Null), None | Some(Value::Null)) => true,
        (a, b) => a == b,
    }
}

/// Whether an output is secret in the schema.
pub fn is_secret_output(token: &str, name: &str) -> bool {
    resources()
        .into_iter()
        .find(|r| r.token == token)
        .is_some_and(|r| r.props.iter().any(|p| p.name == name && p.secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_follow_the_documented_id_formats() {
        let (id, inputs, outputs) =
            import("random:index/randomInteger:RandomInteger", "15390,1,50000").unwrap();
        assert_eq!(
            (id.as_str(), inputs["min"].clone(), outputs["result"].clone()),
            ("15390", json!(1), json!(15390))
        );
        let (id, inputs, outputs) =
            import("random:index/randomId:RandomId", "my-prefix,p-9hUg").unwrap();
        assert_eq!(id, "p-9hUg");
        assert_eq!(inputs["prefix"], "my-prefix");
        assert_eq!(outputs["b64Url"], "my-prefixp-9hUg");
        assert_eq!(outputs["hex"], "my-prefixa7ef6152");
        assert_eq!(outputs["b64Std"], "my-prefixp+9hUg==");
        assert_eq!(outputs["dec"], "my-prefix2817483090");
        let (_, inputs, outputs) =
            import("random:index/randomBytes:RandomBytes", "8/fu3q+2DcgSJ19i0jZ5Cw==").unwrap();
        assert_eq!(inputs["length"], 16);
        assert_eq!(outputs["hex"], "f3f7eedeafb60dc812275f62d236790b");
        let (id, _, outputs) =
            import("random:index/randomPassword:RandomPassword", "supersecret").unwrap();
        assert_eq!(id, "none");
        assert!(bcrypt::verify("supersecret", outputs["bcryptHash"].as_str().unwrap()).unwrap());
        // As the real provider's ImportState: any valid UUID, the prefix up to the last comma,
        // lengths in bytes, integers out of range and as written, empty values.
        assert_eq!(
            import("random:index/randomUuid4:RandomUuid4", "0197ad85-fe6e-7e92-a2f5-7550daa83030")
                .unwrap()
                .0,
            "0197ad85-fe6e-7e92-a2f5-7550daa83030"
        );
        let (id, inputs, _) = import("random:index/randomId:RandomId", "a,b,p-9hUg").unwrap();
        assert_eq!((id.as_str(), inputs["prefix"].clone()), ("p-9hUg", json!("a,b")));
        assert_eq!(
            import("random:index/randomString:RandomString", "héllo").unwrap().1["length"],
            6
        );
        let (id, _, outputs) =
            import("random:index/randomInteger:RandomInteger", "007,10,50").unwrap();
        assert_eq!((id.as_str(), outputs["result"].clone()), ("007", json!(7)));
        assert_eq!(import("random:index/randomBytes:RandomBytes", "").unwrap().1["length"], 0);
        assert!(import("random:index/randomInteger:RandomInteger", "x,1,5")
            .unwrap_err()
            .contains("not an integer"));
        assert!(import("random:index/randomPet:RandomPet", "x")
            .unwrap_err()
            .contains("cannot be imported"));
    }

    #[test]
    fn check_applies_defaults_and_names_problems() {
        let (inputs, failures) = check(
            "random:index/randomPassword:RandomPassword",
            &json!({"length": 8}).as_object().unwrap().clone(),
        )
        .unwrap();
        assert!(failures.is_empty());
        assert_eq!(inputs["special"], true);
        assert_eq!(inputs["minUpper"], 0);
        let (_, failures) = check(
            "random:index/randomPassword:RandomPassword",
            &json!({"length": 2, "minUpper": 3, "colour": "x"}).as_object().unwrap().clone(),
        )
        .unwrap();
        let props: Vec<&str> = failures.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(props, ["colour"], "unknown inputs are reported first");
        let (_, failures) = check(
            "random:index/randomPassword:RandomPassword",
            &json!({"length": 2, "minUpper": 3}).as_object().unwrap().clone(),
        )
        .unwrap();
        assert_eq!(failures[0].0, "length");
        let (_, failures) = check(
            "random:index/randomInteger:RandomInteger",
            &json!({"min": 5}).as_object().unwrap().clone(),
        )
        .unwrap();
        assert_eq!(failures[0].1, "`max` is required");
        // Unknown values pass through (their rules wait until they are known).
        let (inputs, failures) = check(
            "random:index/randomInteger:RandomInteger",
            &json!({"min": UNKNOWN, "max": 10}).as_object().unwrap().clone(),
        )
        .unwrap();
        assert_eq!((failures.len(), inputs["min"].clone()), (0, json!(UNKNOWN)));
        // `number` and `numeric`: one sets the other; both must agree.
        let (inputs, failures) = check(
            "random:index/randomString:RandomString",
            &json!({"length": 4, "number": false}).as_object().unwrap().clone(),
        )
        .unwrap();
        assert_eq!((failures.len(), inputs["numeric"].clone()), (0, json!(false)));
        let (_, failures) = check(
            "random:index/randomString:RandomString",
            &json!({"length": 4, "number": false, "numeric": true}).as_object().unwrap().clone(),
        )
        .unwrap();
        assert_eq!(failures[0].0, "numeric");
    }

    #[test]
    fn created_values_keep_their_rules_and_import_back_without_a_diff() {
        let token = "random:index/randomString:RandomString";
        let (inputs, _) = check(
            token,
            &json!({"length": 24, "minNumeric": 5, "special": false}).as_object().unwrap().clone(),
        )
        .unwrap();
        let (id, outputs) = create(token, &inputs).unwrap();
        let result = outputs["result"].as_str().unwrap();
        assert_eq!(result.chars().count(), 24);
        assert!(result.chars().filter(char::is_ascii_digit).count() >= 5);
        assert!(result.chars().all(char::is_alphanumeric));
        assert_eq!(id, result);
        // A value made with the default rules imports back (by its value) without a diff.
        let (program, _) =
            check(token, &json!({"length": 24}).as_object().unwrap().clone()).unwrap();
        let (_, created) = create(token, &program).unwrap();
        let (_, imported, _) = import(token, created["result"].as_str().unwrap()).unwrap();
        assert_eq!(diff(token, &imported, &program), Vec::<String>::new());
        let seeded = |seed| {
            create(
                "random:index/randomInteger:RandomInteger",
                &json!({"min": 1, "max": 1000000, "seed": seed}).as_object().unwrap().clone(),
            )
            .unwrap()
            .0
        };
        assert_eq!(seeded("a"), seeded("a"));
        let preview = preview_outputs(token, &program).unwrap();
        assert_eq!(
            (preview["result"].clone(), preview["length"].clone()),
            (json!(UNKNOWN), json!(24)),
            "a preview generates nothing"
        );
    }
}

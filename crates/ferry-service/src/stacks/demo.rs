//! The demo stack a newcomer sees on first start: a small service landscape built from the
//! `random` package's resources, as Pulumi would have written its state.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use ferry_state::sig::{SECRET_SIG, SIG_KEY};
use serde_json::{json, Value};

pub const DEMO_STACK: &str = "ferry/demo/dev";

const PROJECT: &str = "demo";
const PROVIDER_ID: &str = "0b4c6a64-7f0f-4f1e-9a53-3a3d2f6e7a11";

fn urn(parent_type: Option<&str>, ty: &str, name: &str) -> String {
    let qualified = match parent_type {
        Some(p) => format!("{p}${ty}"),
        None => ty.to_string(),
    };
    format!("urn:pulumi:dev::{PROJECT}::{qualified}::{name}")
}

/// A secret as the test-only `b64` provider stores it.
fn secret(plain: &str) -> Value {
    let json = Value::String(plain.to_string()).to_string();
    json!({SIG_KEY: SECRET_SIG, "ciphertext": BASE64.encode(json)})
}

/// The demo state, as a `pulumi stack export` v3 document.
pub fn demo_export() -> Value {
    const STACK_TYPE: &str = "pulumi:pulumi:Stack";
    const SERVICE: &str = "ferry:demo:Service";
    let stack = urn(None, STACK_TYPE, "demo-dev");
    let provider = urn(None, "pulumi:providers:random", "default_4_16_0");
    let provider_ref = format!("{provider}::{PROVIDER_ID}");
    let mut resources = vec![
        json!({"urn": stack, "custom": false, "type": STACK_TYPE, "outputs": {}}),
        json!({"urn": provider, "custom": true, "id": PROVIDER_ID, "type": "pulumi:providers:random",
               "inputs": {"version": "4.16.0"}, "outputs": {"version": "4.16.0"}}),
    ];
    let custom = |parent: &str,
                  parent_type: &str,
                  ty: &str,
                  name: &str,
                  id: &str,
                  inputs: Value,
                  outputs: Value,
                  deps: Vec<String>| {
        json!({"urn": urn(Some(parent_type), ty, name), "custom": true, "id": id, "type": ty,
               "inputs": inputs, "outputs": outputs, "parent": parent, "provider": provider_ref,
               "dependencies": deps, "protect": true})
    };

    // The shared database: an admin password and an instance ID.
    let db_type = format!("{STACK_TYPE}${SERVICE}");
    let db = urn(Some(STACK_TYPE), SERVICE, "database");
    resources.push(json!({"urn": db, "custom": false, "type": SERVICE, "parent": stack}));
    let db_id = "kT3ZqA";
    let db_id_urn = urn(Some(&db_type), "random:index/randomId:RandomId", "database-id");
    resources.push(custom(
        &db,
        &db_type,
        "random:index/randomId:RandomId",
        "database-id",
        db_id,
        json!({"byteLength": 4}),
        json!({"b64Std": "kT3ZqA==", "b64Url": "kT3ZqA", "byteLength": 4, "dec": "2436798888", "hex": "913d99a8", "id": db_id}),
        vec![],
    ));
    // A stack records the inputs its provider's Check returned: for passwords and strings, the
    // defaults the random provider fills in (as a real stack's state holds them).
    let checked = |mut inputs: Value| {
        for flag in ["lower", "upper", "special", "numeric", "number"] {
            inputs.as_object_mut().expect("an object").entry(flag).or_insert(json!(true));
        }
        for min in ["minLower", "minUpper", "minNumeric", "minSpecial"] {
            inputs.as_object_mut().expect("an object").entry(min).or_insert(json!(0));
        }
        inputs
    };
    let admin_urn =
        urn(Some(&db_type), "random:index/randomPassword:RandomPassword", "admin-password");
    resources.push(custom(
        &db,
        &db_type,
        "random:index/randomPassword:RandomPassword",
        "admin-password",
        "none",
        checked(json!({"length": 24, "special": true, "overrideSpecial": "!#%&*()-_=+"})),
        json!({"length": 24, "special": true, "overrideSpecial": "!#%&*()-_=+", "lower": true, "upper": true,
               "numeric": true, "minLower": 0, "minUpper": 0, "minNumeric": 0, "minSpecial": 0,
               "result": secret("q7(N=yD!s0pW&k2Lr_Vf+8Xh"), "bcryptHash": secret("$2a$10$0f4zqv3U0xq1n1y0bH1B5u")}),
        vec![db_id_urn.clone()],
    ));

    for (service, port, words) in [
        ("web", 8080, "brave-otter"),
        ("api", 9090, "quiet-heron"),
        ("worker", 7070, "steady-lynx"),
    ] {
        let svc = urn(Some(STACK_TYPE), SERVICE, service);
        let svc_type = format!("{STACK_TYPE}${SERVICE}");
        resources.push(json!({"urn": svc, "custom": false, "type": SERVICE, "parent": stack, "dependencies": [db]}));
        let pet_urn =
            urn(Some(&svc_type), "random:index/randomPet:RandomPet", &format!("{service}-name"));
        resources.push(custom(
            &svc,
            &svc_type,
            "random:index/randomPet:RandomPet",
            &format!("{service}-name"),
            words,
            json!({"length": 2, "separator": "-"}),
            json!({"id": words, "length": 2, "separator": "-"}),
            vec![],
        ));
        resources.push(custom(
            &svc,
            &svc_type,
            "random:index/randomInteger:RandomInteger",
            &format!("{service}-port"),
            &port.to_string(),
            json!({"min": 1024, "max": 65535, "seed": service}),
            json!({"id": port.to_string(), "min": 1024, "max": 65535, "seed": service, "result": port}),
            vec![],
        ));
        let suffix = format!("{}{}", &service[..1], port % 997);
        resources.push(custom(
            &svc,
            &svc_type,
            "random:index/randomString:RandomString",
            &format!("{service}-suffix"),
            &suffix,
            checked(json!({"length": suffix.len(), "special": false, "upper": false, "keepers": {"name": words}})),
            json!({"id": suffix, "length": suffix.len(), "special": false, "upper": false, "lower": true, "numeric": true,
                   "keepers": {"name": words}, "result": suffix}),
            vec![pet_urn.clone()],
        ));
        resources.push(custom(
            &svc,
            &svc_type,
            "random:index/randomPassword:RandomPassword",
            &format!("{service}-db-password"),
            "none",
            checked(json!({"length": 20, "special": false})),
            json!({"length": 20, "special": false, "lower": true, "upper": true, "numeric": true,
                   "result": secret(&format!("{service}-Pw{port}-xYz9"))}),
            vec![admin_urn.clone(), db_id_urn.clone()],
        ));
    }
    json!({"version": 3, "deployment": {
        "manifest": {"time": "2026-11-01T09:00:00Z", "magic": "", "version": "ferry"},
        "secrets_providers": {"type": "b64", "state": {}},
        "resources": resources,
    }})
}

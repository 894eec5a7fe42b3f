//! Import ID recipes read off the real package schemas Pulumi publishes: every resource type of
//! each, with the recipe its documentation gives, or `none` where it tells nothing (never a
//! guess).

use std::path::PathBuf;

use ferry_engine::recipes::recipe_of;

fn schemas() -> PathBuf {
    std::env::var_os("FERRY_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures")
        })
        .join("pulumi/schemas")
}

/// `type → recipe` for every resource of a package, and how many have one.
fn table(package: &str) -> (String, usize, usize) {
    let text = std::fs::read_to_string(schemas().join(format!("{package}.schema.json"))).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let resources = schema["resources"].as_object().unwrap();
    let mut lines = Vec::new();
    let mut with = 0;
    for (token, r) in resources {
        let recipe = recipe_of(token, r);
        with += usize::from(recipe.is_some());
        lines.push(format!(
            "{token} → {}",
            recipe.map(|r| r.template()).unwrap_or_else(|| "none".into())
        ));
    }
    lines.sort();
    (lines.join("\n") + "\n", with, resources.len())
}

#[test]
fn the_real_schemas_give_their_recipes() {
    let mut all = String::new();
    let mut counts = Vec::new();
    for package in ["command", "postgresql", "random", "tls"] {
        let (lines, with, of) = table(package);
        all.push_str(&format!("# {package}: {with} of {of}\n{lines}"));
        counts.push((package, with, of));
    }
    insta::assert_snapshot!(all);
    // What each package's documentation gives. random documents `pulumi import` for six of its
    // ten types: three say what the ID is made of (bytes, ID, integer); the UUIDs' text says
    // only that they "can be imported", so they get none. The bridged postgresql documents one
    // example, an ID (`db.schema.function(args)`) whose parts nothing in the text names; tls and
    // command document none.
    assert_eq!(
        counts,
        vec![("command", 0, 4), ("postgresql", 0, 16), ("random", 3, 10), ("tls", 0, 4)]
    );
    // The composite one, read from the example program's values and the text's names.
    let (random, ..) = table("random");
    assert!(
        random.contains("random:index/randomInteger:RandomInteger → <result>,<min>,<max>\n"),
        "{random}"
    );
}

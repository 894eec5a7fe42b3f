//! Code from hostile input declares what it should and nothing more. States and Terraform files
//! are anyone's text, and the code Ferry writes from them is run by the people it is handed to:
//! resource names, input keys, values, Terraform addresses, `ignoreChanges` paths and type tokens
//! that try to end a string, a comment or a line and write a statement of their own are put
//! through every printer, and each language's own parser reads the result — Python's `ast`,
//! TypeScript's compiler, Go's `go/parser`, C#'s tree-sitter grammar, Ferry's Pulumi YAML
//! reader — which must find the program whole, the resources expected, and no `PWNED` anywhere
//! but inside a string, a comment or a renamed identifier.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use ferry_codegen::{lower, Language, Options, Origin, OriginPart, OriginTemplate, SourceResource};
use ferry_property::{PropertyMap, PropertyValue};
use proptest::prelude::*;

/// Text that ends a string, a comment or a line in one language or another, then writes the
/// statement `PWNED()` (the marker a parser must never find as code).
const PAYLOADS: &[&str] = &[
    "a\nPWNED()\n",
    "a\r\nPWNED()#",
    "\"); PWNED(); (\"",
    "'); PWNED(); ('",
    "*/ PWNED() /*",
    "` + PWNED() + `",
    "${PWNED()}",
    "\"\"\"\nPWNED()\n\"\"\"",
    "a\u{2028}PWNED()\u{2029}",
    "x\\\"); PWNED(); //",
    "=1, **PWNED()) #",
    "__import__('os').system('PWNED')",
    "fn::PWNED",
    "a: b\nPWNED: 1",
];

fn payload() -> impl Strategy<Value = String> {
    (proptest::sample::select(PAYLOADS), "[a-z]{0,3}").prop_map(|(p, tail)| format!("{p}{tail}"))
}

const PROJECT: &str = "hostile";

fn urn(token: &str, name: &str) -> String {
    format!("urn:pulumi:dev::{PROJECT}::{token}::{name}")
}

/// Resources made of the payloads: a typed resource whose map keys and values are hostile, one
/// whose type the schema does not know with hostile input keys, and a Terraform-migrated one
/// with a hostile address; every name, value and path hostile.
fn hostile_resources(texts: &[String]) -> Vec<SourceResource> {
    let t = |i: usize| texts[i % texts.len()].clone();
    let string = |s: String| PropertyValue::String(s);
    let keepers = PropertyMap::from([
        (t(0), string(t(1))),
        (t(2), PropertyValue::Object(PropertyMap::from([(t(3), string(t(4)))]))),
    ]);
    let typed = SourceResource {
        urn: urn("random:index/randomString:RandomString", &t(5)),
        name: t(5),
        token: "random:index/randomString:RandomString".into(),
        custom: true,
        id: Some(t(6)),
        inputs: PropertyMap::from([
            ("length".into(), PropertyValue::Number(8.0)),
            ("keepers".into(), PropertyValue::Object(keepers)),
        ]),
        ignore_changes: vec![t(7)],
        ..Default::default()
    };
    let untyped = SourceResource {
        urn: urn("random:index/notInTheSchema:NotInTheSchema", &t(8)),
        name: t(8),
        token: "random:index/notInTheSchema:NotInTheSchema".into(),
        custom: true,
        id: Some("x".into()),
        inputs: PropertyMap::from([(t(9), string(t(10))), ("plain".into(), string(t(11)))]),
        ..Default::default()
    };
    let migrated = SourceResource {
        urn: urn("random:index/randomPet:RandomPet", &t(12)),
        name: t(12),
        token: "random:index/randomPet:RandomPet".into(),
        custom: true,
        id: Some("pet".into()),
        inputs: PropertyMap::from([("prefix".into(), string(t(13)))]),
        // Its prefix a template of hostile text around a variable whose text is hostile too.
        origin: Some(Origin {
            tool: "Terraform".into(),
            address: t(14),
            instance: None,
            references: Vec::new(),
            variables: Vec::new(),
            templates: vec![OriginTemplate {
                property: "prefix".into(),
                key: None,
                parts: vec![
                    OriginPart::Text(t(15)),
                    OriginPart::Variable { name: "env".into(), text: t(16) },
                    OriginPart::Text(t(17)),
                ],
            }],
        }),
        ..Default::default()
    };
    vec![typed, untyped, migrated]
}

fn sdk_check() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sdk-check")
}

fn run(cmd: &mut Command, input: &Path, what: &str) -> String {
    let out = cmd
        .arg(input)
        .output()
        .unwrap_or_else(|e| panic!("{what} could not run (./scripts/test.sh installs it): {e}"));
    assert!(
        out.status.success(),
        "{what} refused {}:\n{}\n{}",
        input.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Python: `ast.parse`, then every `Name` the program uses; a statement smuggled in would use
/// `PWNED` as a name.
const PYTHON_CHECK: &str = r#"
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
names = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)})
calls = sum(1 for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call))
print(",".join(names)); print(calls)
"#;

/// TypeScript: the compiler's parser, with its syntax errors, then every identifier that is an
/// expression (not an object key).
const TYPESCRIPT_CHECK: &str = r#"
const ts = require(process.argv[2]);
const fs = require("fs");
const file = ts.createSourceFile("index.ts", fs.readFileSync(process.argv[3], "utf8"), ts.ScriptTarget.Latest, true);
if (file.parseDiagnostics.length) { console.error(file.parseDiagnostics.map(d => d.messageText)); process.exit(1); }
const names = new Set();
const walk = (n) => {
  if (ts.isIdentifier(n) && !(ts.isPropertyAssignment(n.parent) && n.parent.name === n) && !(ts.isPropertyAccessExpression(n.parent) && n.parent.name === n)) names.add(n.text);
  ts.forEachChild(n, walk);
};
walk(file);
console.log([...names].sort().join(","));
"#;

/// Go: `go/parser`, then every identifier.
const GO_CHECK: &str = r#"package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
)

func main() {
	f, err := parser.ParseFile(token.NewFileSet(), os.Args[1], nil, parser.AllErrors)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			fmt.Println(id.Name)
		}
		return true
	})
}
"#;

/// `resources`: how many top-level calls there must be (declarations and config reads) (`None` where code makes loops of
/// a Terraform resource's instances, which declare several in one).
fn check_python(code: &str, dir: &Path, resources: Option<usize>) {
    let file = dir.join("__main__.py");
    std::fs::write(&file, code).unwrap();
    let out = run(Command::new("python3").arg("-c").arg(PYTHON_CHECK), &file, "python3's ast");
    let (names, calls) = out.trim().split_once('\n').unwrap();
    assert!(
        !names.split(',').any(|n| n.contains("PWNED")),
        "a statement of the input's own in Python: {names}\n{code}"
    );
    if let Some(resources) = resources {
        assert_eq!(
            calls.parse::<usize>().unwrap(),
            resources,
            "one declaration per resource\n{code}"
        );
    }
}

fn check_typescript(code: &str, dir: &Path) {
    let file = dir.join("index.ts");
    std::fs::write(&file, code).unwrap();
    let compiler = sdk_check().join("node_modules/typescript/lib/typescript.js");
    assert!(
        compiler.exists(),
        "TypeScript's compiler is missing ({}): ./scripts/test.sh installs it",
        compiler.display()
    );
    let script = dir.join("check-ts.cjs");
    std::fs::write(&script, TYPESCRIPT_CHECK).unwrap();
    let out = run(Command::new("node").arg(&script).arg(&compiler), &file, "TypeScript's parser");
    assert!(
        !out.split(',').any(|n| n.contains("PWNED")),
        "a statement of the input's own in TypeScript: {out}\n{code}"
    );
}

fn check_go(code: &str, dir: &Path, checker: &Path) {
    let file = dir.join("main.go");
    std::fs::write(&file, code).unwrap();
    let out = run(&mut Command::new(checker), &file, "Go's parser");
    // Go spells inputs as identifiers: a renamed one may hold the marker, never alone.
    assert!(!out.lines().any(|n| n == "PWNED"), "a statement of the input's own in Go:\n{code}");
}

/// C#: tree-sitter's C# grammar (no C# compiler on this machine); a syntax error is an `ERROR`
/// or missing node, and a statement of the input's own would name `PWNED` alone.
fn check_csharp(code: &str) {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_c_sharp::LANGUAGE.into()).expect("the C# grammar loads");
    let tree = parser.parse(code, None).expect("the parser answers");
    let root = tree.root_node();
    assert!(!root.has_error(), "C# that does not parse:\n{code}");
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "identifier" {
            assert_ne!(
                &code[node.byte_range()],
                "PWNED",
                "a statement of the input's own in C#:\n{code}"
            );
        }
        stack.extend(node.children(&mut cursor));
    }
}

fn check_yaml(code: &str, resources: usize) {
    let program = ferry_engine::program::parse_program("Pulumi.yaml", code)
        .unwrap_or_else(|e| panic!("Pulumi YAML does not read it: {e}\n{code}"));
    assert_eq!(program.resources.len(), resources, "exactly the resources expected\n{code}");
}

/// The Go checker, built once per test process.
fn go_checker() -> &'static Path {
    static CHECKER: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &CHECKER
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let binary = build_go_checker(dir.path());
            (dir, binary)
        })
        .1
}

fn build_go_checker(dir: &Path) -> PathBuf {
    let source = dir.join("check.go");
    std::fs::write(&source, GO_CHECK).unwrap();
    let binary = dir.join("check-go");
    let out = Command::new("go")
        .arg("build")
        .arg("-o")
        .arg(&binary)
        .arg(&source)
        .env("GOCACHE", dir.join("gocache"))
        .env("GOPATH", dir.join("gopath"))
        .output()
        .unwrap_or_else(|e| panic!("go is missing (./scripts/test.sh installs golang-go): {e}"));
    assert!(
        out.status.success(),
        "the Go checker did not build: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    binary
}

fn check_all(texts: &[String], dir: &Path, go: &Path) {
    check_code(hostile_resources(texts), dir, go);
}

/// Code for `resources` in every language, each read back by its language's parser.
fn check_code(resources: Vec<SourceResource>, dir: &Path, go: &Path) {
    let schemas = common::schemas();
    let options = Options { references: true, ..Default::default() };
    let program = match lower(PROJECT, &resources, &[], &schemas, &options) {
        Ok(program) => program,
        Err(e) => panic!("hostile input is code with warnings, or a clear refusal, never a failure of the generator: {e}"),
    };
    let declared = program.resources.len();
    assert_eq!(declared, resources.len(), "every resource is declared once");
    let loops = resources.iter().any(|r| r.origin.as_ref().is_some_and(|o| o.instance.is_some()));
    // Each config read is a call too, after `pulumi.Config()`'s.
    let reads = if program.config.is_empty() { 0 } else { 1 + program.config.len() };
    check_python(
        &ferry_codegen::emit(&program, Language::Python),
        dir,
        (!loops).then_some(declared + reads),
    );
    check_typescript(&ferry_codegen::emit(&program, Language::TypeScript), dir);
    check_go(&ferry_codegen::emit(&program, Language::Go), dir, go);
    check_csharp(&ferry_codegen::emit(&program, Language::CSharp));
    check_yaml(&ferry_codegen::emit(&program, Language::Yaml), declared);
    // The project's own files: no line the input wrote.
    for language in [Language::Python, Language::Go, Language::CSharp, Language::TypeScript] {
        for (path, text) in ferry_codegen::project::files(&program, language) {
            if path != language.file_name() {
                assert!(!text.contains("PWNED"), "{path}:\n{text}");
            }
        }
    }
}

#[test]
fn every_payload_in_every_place_is_only_text() {
    let dir = tempfile::tempdir().unwrap();
    let go = go_checker();
    // Each payload once in every place, then the payloads shifted through the places.
    for shift in 0..PAYLOADS.len() {
        let texts: Vec<String> = (0..PAYLOADS.len())
            .map(|i| PAYLOADS[(i + shift) % PAYLOADS.len()].to_string())
            .collect();
        check_all(&texts, dir.path(), go);
    }
    // Each payload in every place at once: a value equal to another resource's ID becomes a
    // reference to it, whose name is then the payload (found by the property test below).
    for payload in PAYLOADS {
        check_all(&vec![payload.to_string(); PAYLOADS.len()], dir.path(), go);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn generated_payloads_are_only_text(texts in proptest::collection::vec(payload(), 15)) {
        let dir = tempfile::tempdir().unwrap();
        check_all(&texts, dir.path(), go_checker());
    }

    #[test]
    fn hostile_terraform_files_are_only_text(texts in proptest::collection::vec(payload(), 12)) {
        let dir = tempfile::tempdir().unwrap();
        // A refusal names what is wrong; anything read must be only text.
        if let Err(e) = check_terraform(&texts, dir.path(), go_checker()) {
            prop_assert!(!e.is_empty());
        }
    }
}

const TERRAFORM_RANDOM: &str = "provider[\"registry.terraform.io/hashicorp/random\"]";

/// A Terraform state whose every free text is a payload: `for_each` keys, a module's name and
/// key, a deposed object's key, a `keepers` map's keys and values, an attribute, the IDs and the
/// lineage. (Resource names and types are identifiers, which the reader checks: see
/// `a_terraform_name_that_is_no_identifier_is_refused_by_name`.)
fn hostile_terraform_state(texts: &[String]) -> Vec<u8> {
    let t = |i: usize| texts[i % texts.len()].clone();
    let attributes = |id: String| serde_json::json!({"id": id, "length": 8, "result": id, "keepers": {t(0): t(1)}, "override_special": t(2), "special": true});
    let instance = |key: Option<String>, deposed: Option<String>, id: String| {
        let mut i = serde_json::json!({"schema_version": 2, "attributes": attributes(id), "sensitive_attributes": [], "dependencies": ["random_string.hostile"]});
        if let Some(key) = key {
            i["index_key"] = key.into();
        }
        if let Some(deposed) = deposed {
            i["deposed"] = deposed.into();
        }
        i
    };
    serde_json::json!({
        "version": 4, "terraform_version": "1.13.3", "serial": 1, "lineage": t(4), "outputs": {},
        "resources": [
            {"mode": "managed", "type": "random_string", "name": "hostile", "provider": TERRAFORM_RANDOM,
             "instances": [instance(None, None, t(5))]},
            {"mode": "managed", "type": "random_string", "name": "keyed", "each": "map", "provider": TERRAFORM_RANDOM,
             "instances": [instance(Some(t(6)), None, t(7)), instance(Some(format!("{}2", t(8))), None, "plain".into()), instance(Some(t(6)), Some(t(9)), t(10))]},
            // A module's key is any text; its name is read up to a `.` or `[`.
            {"module": format!("module.web[{}]", serde_json::Value::String(t(11))), "mode": "managed", "type": "random_string", "name": "in_module", "provider": TERRAFORM_RANDOM,
             "instances": [instance(None, None, "m".into())]},
            {"module": format!("module.{}", t(3).replace(['.', '['], "_")), "mode": "managed", "type": "random_string", "name": "in_named_module", "provider": TERRAFORM_RANDOM,
             "instances": [instance(None, None, "n".into())]}
        ]
    })
    .to_string()
    .into_bytes()
}

/// A hostile Terraform state is refused by name, or migrated into a Pulumi YAML program that
/// reads back with exactly its imports (each keeping its address), and then into code in every
/// language that holds only the file's text as text.
fn check_terraform(texts: &[String], dir: &Path, go: &Path) -> Result<(), String> {
    let state =
        ferry_terraform::read_state(&hostile_terraform_state(texts)).map_err(|e| e.to_string())?;
    let mappings = ferry_terraform::Mappings::of(
        "hashicorp/random",
        "random",
        ferry_terraform::testing::random_mapping(),
    );
    let options = ferry_terraform::MigrationOptions {
        project: PROJECT.into(),
        include_deposed: true,
        ..Default::default()
    };
    let migration = ferry_terraform::migrate(&state, &mappings, &options);
    let text = migration.program.as_deref().expect("every instance maps");
    let program = ferry_engine::program::parse_program("Pulumi.yaml", text)
        .unwrap_or_else(|e| panic!("the migration's program does not read: {e}\n{text}"));
    let declared: Vec<&str> = program.resources.iter().map(|r| r.name.as_str()).collect();
    let imported: Vec<&str> = migration.prior.keys().map(String::as_str).collect();
    assert_eq!(declared.len(), state.instances.len(), "one declaration per instance\n{text}");
    let mut sorted = declared.clone();
    sorted.sort();
    assert_eq!(sorted, imported, "exactly the imports\n{text}");
    for r in &program.resources {
        assert_eq!(r.type_, "random:index/randomString:RandomString", "{text}");
        assert!(r.options.import.is_some(), "{}: an import ID\n{text}", r.name);
    }
    let addresses = ferry_terraform::addresses_in_program(text);
    assert_eq!(addresses.len(), imported.len(), "every import keeps its address\n{text}");
    let resources = migration
        .prior
        .iter()
        .map(|(name, prior)| SourceResource {
            urn: urn(&prior.type_, name),
            name: name.clone(),
            token: prior.type_.clone(),
            custom: true,
            id: Some(prior.id.clone()),
            inputs: ferry_property::json::decode_map(&prior.inputs, "", &Default::default())
                .expect("Pulumi state form"),
            origin: Some(Origin {
                tool: "Terraform".into(),
                address: prior.address.clone(),
                instance: prior.instance_of.clone(),
                references: Vec::new(),
                variables: Vec::new(),
                templates: Vec::new(),
            }),
            ..Default::default()
        })
        .collect();
    check_code(resources, dir, go);
    Ok(())
}

#[test]
fn a_terraform_name_that_is_no_identifier_is_refused_by_name() {
    for payload in PAYLOADS {
        let state = serde_json::json!({"version": 4, "resources": [{"mode": "managed", "type": "random_string", "name": payload, "provider": TERRAFORM_RANDOM, "instances": []}]});
        let err = ferry_terraform::read_state(state.to_string().as_bytes()).unwrap_err();
        assert!(err.to_string().contains("is not a Terraform name"), "{payload:?}: {err}");
    }
}

#[test]
fn every_payload_in_every_place_of_a_terraform_file_is_only_text() {
    let dir = tempfile::tempdir().unwrap();
    let go = go_checker();
    // Terraform writes any text as a key, a value or an ID: these files are read, not refused.
    for shift in 0..PAYLOADS.len() {
        let texts: Vec<String> = (0..PAYLOADS.len())
            .map(|i| PAYLOADS[(i + shift) % PAYLOADS.len()].to_string())
            .collect();
        check_terraform(&texts, dir.path(), go)
            .unwrap_or_else(|e| panic!("{texts:?} was refused: {e}"));
    }
    for payload in PAYLOADS {
        check_terraform(&vec![payload.to_string(); PAYLOADS.len()], dir.path(), go)
            .unwrap_or_else(|e| panic!("{payload:?} everywhere was refused: {e}"));
    }
}

#[test]
fn a_type_token_that_is_no_type_is_refused_by_name() {
    let schemas = common::schemas();
    let token = "random:index/x:X\nimport os";
    let resource = SourceResource {
        urn: urn(token, "r"),
        name: "r".into(),
        token: token.into(),
        custom: true,
        id: Some("i".into()),
        ..Default::default()
    };
    let err =
        lower(PROJECT, &[resource], &[], &schemas, &Options::default()).unwrap_err().to_string();
    assert!(err.contains("is not a type token"), "{err}");
    // The control: the same resource with its real type generates.
    let token = "random:index/randomPet:RandomPet";
    let resource = SourceResource {
        urn: urn(token, "r"),
        name: "r".into(),
        token: token.into(),
        custom: true,
        id: Some("i".into()),
        ..Default::default()
    };
    assert!(lower(PROJECT, &[resource], &[], &schemas, &Options::default()).is_ok());
}

/// The C# check is a check: a smuggled call, or text that does not parse, fails it.
#[test]
fn the_csharp_reader_sees_a_smuggled_statement() {
    check_csharp("class A { void M() { var s = \"PWNED()\"; } }");
    for bad in [
        "class A { void M() { var s = \"x\"; PWNED(); } }",
        "class A { void M() { var s = \"x\"); } }",
    ] {
        assert!(std::panic::catch_unwind(|| check_csharp(bad)).is_err(), "{bad}");
    }
}

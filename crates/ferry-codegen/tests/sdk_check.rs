//! Generated code against the real Pulumi SDKs: TypeScript type-checks with `tsc` against the
//! npm packages, Python with `pyright` against the PyPI packages, Go passes `gofmt -e`.
//!
//! The SDKs live in `crates/ferry-codegen/sdk-check/` (npm) and `target/codegen-venv` (PyPI);
//! `scripts/test.sh` installs them. A machine without them fails these tests, naming what is
//! missing: a check never passes because its checker is absent.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use ferry_codegen::{lower, project, CodeStyle, Language, Options};

fn sdk_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sdk-check")
}

fn venv() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/codegen-venv")
}

/// Fails, naming the tool, when it is missing: a check whose checker is absent never passes.
fn require(tool: &Path, what: &str) {
    assert!(
        tool.exists(),
        "{what} is missing ({}): run ./scripts/test.sh, which installs it",
        tool.display()
    );
}

/// Every case: the fixture schemas' resources (random, postgresql, tls: the packages whose SDKs
/// are installed), and the stack case and the Terraform loops case in both styles.
fn programs() -> Vec<(String, ferry_codegen::ir::Program)> {
    let schemas = common::schemas();
    let mut out = Vec::new();
    for package in ["random", "postgresql", "tls"] {
        let resources = common::sample_resources(&schemas[package], "fixtures");
        out.push((
            package.to_string(),
            lower("fixtures", &resources, &[], &schemas, &Options::default()).unwrap(),
        ));
    }
    let (resources, context) = common::stack_case();
    for (style, name) in [(CodeStyle::Cli, "stack-cli"), (CodeStyle::CodeFirst, "stack-code-first")]
    {
        let options = Options { style, elide: true, references: true, ..Default::default() };
        out.push((
            name.to_string(),
            lower("shop", &resources, &context, &schemas, &options).unwrap(),
        ));
    }
    // A Terraform migration's instances as loops, in both styles.
    let resources = common::terraform_case();
    for (style, name) in
        [(CodeStyle::Cli, "terraform-cli"), (CodeStyle::CodeFirst, "terraform-code-first")]
    {
        let options = Options { style, elide: true, references: true, ..Default::default() };
        let program = lower("migrated", &resources, &[], &schemas, &options).unwrap();
        assert_eq!(program.loops.len(), 2, "the case has loops to check");
        out.push((name.to_string(), program));
    }
    out
}

/// Writes each case's project for `lang` under `sdk-check/generated/<lang>/<case>/`.
fn write(lang: Language) -> Vec<PathBuf> {
    let root = sdk_dir().join("generated").join(lang.id());
    let _ = std::fs::remove_dir_all(&root);
    programs()
        .into_iter()
        .map(|(name, program)| {
            let dir = root.join(&name);
            std::fs::create_dir_all(&dir).unwrap();
            for (file, text) in project::files(&program, lang) {
                std::fs::write(dir.join(file), text).unwrap();
            }
            dir
        })
        .collect()
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn typescript_type_checks_against_the_npm_sdks() {
    let tsc = sdk_dir().join("node_modules/.bin/tsc");
    require(&tsc, "tsc with the @pulumi npm packages");
    for dir in write(Language::TypeScript) {
        run(
            Command::new(&tsc).arg("--noEmit").arg("-p").arg(dir.join("tsconfig.json")),
            &format!("tsc on {}", dir.display()),
        );
    }
}

#[test]
fn python_type_checks_against_the_pypi_sdks() {
    let pyright = sdk_dir().join("node_modules/.bin/pyright");
    let python = venv().join("bin/python");
    require(&pyright, "pyright");
    require(&python, "the Python venv with the pulumi packages");
    let files: Vec<PathBuf> =
        write(Language::Python).into_iter().map(|d| d.join("__main__.py")).collect();
    run(Command::new(&pyright).arg("--pythonpath").arg(&python).args(&files), "pyright");
}

#[test]
fn go_is_valid_go() {
    let gofmt = PathBuf::from("/usr/bin/gofmt");
    require(&gofmt, "gofmt (Debian's golang-go)");
    for dir in write(Language::Go) {
        run(
            Command::new(&gofmt).arg("-e").arg(dir.join("main.go")),
            &format!("gofmt -e on {}", dir.display()),
        );
    }
}

//! ARCHITECTURE.md stays true: every file and folder its code map names exists (a renamed or
//! removed module fails here), every file, function and name its flows give is there,
//! every workspace crate is in the map, every Rust module of the
//! workspace (and so every one the map names) opens with its `//!` summary, every crate's root
//! with one, without "So far" or "(next)" left over from when it
//! was being built; and the plugins the release server runs build as the engine bench's do.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The text between backticks, in order.
fn quoted(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

/// Whether a backticked word names a file or folder (not a type, a call or a value).
fn is_path(token: &str) -> bool {
    const EXTENSIONS: [&str; 8] = [".rs", ".sh", ".mjs", ".js", ".py", ".css", ".proto", ".md"];
    // (`.proto` alone is a kind of file, not a path.)
    !token.is_empty()
        && !token.starts_with('.')
        && token.chars().all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c))
        && (token.ends_with('/') || EXTENSIONS.iter().any(|e| token.ends_with(e)))
        // Build outputs are not in the repository.
        && !token.starts_with("target/")
}

/// Every path below `dir` (skipping dependencies and build outputs).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "node_modules" || name == "target" || name == ".git" {
            continue;
        }
        if path.is_dir() {
            out.push(path.clone());
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Every Rust file of the workspace's crates (tests, benches and build scripts among them).
fn rust_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["app/src", "server/src", "crates"] {
        walk(&root.join(dir), &mut files);
    }
    files.retain(|p| p.extension().is_some_and(|e| e == "rs"));
    files
}

fn code_map(doc: &str) -> Vec<String> {
    let start = doc.find("\n## Code map").expect("ARCHITECTURE.md has a code map");
    let rest = &doc[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    // One entry per bullet, its wrapped lines joined.
    let mut bullets: Vec<String> = Vec::new();
    for line in rest[..end].lines() {
        if let Some(b) = line.strip_prefix("- ") {
            bullets.push(b.to_string());
        } else if let Some(last) = bullets.last_mut() {
            last.push(' ');
            last.push_str(line.trim());
        }
    }
    bullets
}

#[test]
fn every_path_the_code_map_names_exists() {
    let root = root();
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let bullets = code_map(&doc);
    assert!(bullets.len() >= 10, "the code map has a bullet per crate and folder");
    let mut missing = Vec::new();
    let mut checked = 0;
    for bullet in &bullets {
        let tokens = quoted(bullet);
        let base = root.join(tokens[0]);
        assert!(base.exists(), "the code map's `{}` does not exist", tokens[0]);
        let mut below = Vec::new();
        walk(if base.is_dir() { &base } else { &root }, &mut below);
        for token in tokens.iter().skip(1).filter(|t| is_path(t)) {
            let wanted = token.trim_end_matches('/');
            let found = base.join(wanted).exists()
                || root.join(wanted).exists()
                || below.iter().any(|p| p.to_string_lossy().ends_with(&format!("/{wanted}")));
            checked += 1;
            if !found {
                missing.push(format!("`{token}` (under `{}`)", tokens[0]));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} paths were checked: is the code map still written with backticks?"
    );
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names what does not exist: {}",
        missing.join(", ")
    );
}

/// Whether `code` defines the function `name` (a free function, or a method of `of` when given:
/// the file has an `impl` of that type).
fn defines(code: &str, name: &str, of: Option<&str>) -> bool {
    let function =
        [format!("fn {name}("), format!("fn {name}<")].iter().any(|f| code.contains(f.as_str()));
    function
        && of.is_none_or(|ty| {
            code.lines().map(str::trim_start).any(|l| {
                l.starts_with("impl")
                    && l.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|w| w == ty)
            })
        })
}

/// The flows of "Where to start reading", followed through the names they give: every file a
/// flow names exists, and a function or method named in brackets right after a file (`` `x.rs`
/// (`Type::method` ``) is defined in that file; every other name a flow gives is a word of the
/// workspace's code. A flow that takes a renamed or moved step fails here.
#[test]
fn the_flows_name_files_and_functions_that_exist() {
    let root = root();
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let start = doc.find("\n## Where to start reading").expect("ARCHITECTURE.md has its flows");
    let section = &doc[start..doc[start + 1..].find("\n## ").map_or(doc.len(), |e| e + start + 1)];
    // The server's tests too: a flow may name the test that holds it.
    let mut tests = Vec::new();
    walk(&root.join("server/tests"), &mut tests);
    tests.retain(|p| p.extension().is_some_and(|e| e == "rs"));
    let code: String = rust_files(&root)
        .iter()
        .chain(&tests)
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let mut wrong = Vec::new();
    let (mut files, mut functions, mut names) = (0, 0, 0);
    let pieces: Vec<&str> = section.split('`').collect();
    for (i, token) in pieces.iter().enumerate().skip(1).step_by(2) {
        if is_path(token) {
            files += 1;
            let Ok(text) = std::fs::read_to_string(root.join(token)) else {
                wrong.push(format!("`{token}` does not exist"));
                continue;
            };
            // `path` (`symbol`…: the symbol is the file's.
            if pieces.get(i + 1).is_some_and(|between| *between == " (") {
                let symbol = pieces.get(i + 2).copied().unwrap_or_default();
                let (of, name) = match symbol.rsplit_once("::") {
                    Some((of, name)) => (Some(of), name),
                    None => (None, symbol),
                };
                functions += 1;
                if !defines(&text, name, of) {
                    wrong.push(format!("`{symbol}` is not defined in `{token}`"));
                }
            }
        } else if token.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ':')
            && token.chars().any(|c| c == '_' || c == ':' || c.is_uppercase())
        {
            names += 1;
            let word = token.rsplit("::").next().unwrap_or(token);
            let found = code.match_indices(word).any(|(at, _)| {
                let before = code[..at].chars().next_back();
                let after = code[at + word.len()..].chars().next();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
            });
            if !found {
                wrong.push(format!("`{token}` is no name of the code"));
            }
        }
    }
    assert!(files > 30 && functions > 5 && names > 20, "{files} files, {functions} functions, {names} names checked: are the flows still written with backticks?");
    assert!(wrong.is_empty(), "ARCHITECTURE.md's flows: {}", wrong.join("; "));
}

#[test]
fn every_crate_is_mapped_and_opens_with_its_summary() {
    let root = root();
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let mapped: Vec<String> =
        code_map(&doc).iter().map(|b| quoted(b)[0].trim_end_matches('/').to_string()).collect();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members_line =
        manifest.lines().find(|l| l.starts_with("members")).expect("a workspace members list");
    let members =
        quoted(&members_line.replace('"', "`")).into_iter().map(str::to_string).collect::<Vec<_>>();
    assert!(members.len() >= 8, "{members:?}");
    for member in &members {
        assert!(
            mapped.iter().any(|m| m == member || member.starts_with(&format!("{m}/"))),
            "`{member}` is not in the code map"
        );
        let src = root.join(member).join("src");
        let crate_root = ["lib.rs", "main.rs"]
            .iter()
            .map(|f| src.join(f))
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("{member} has no lib.rs or main.rs"));
        let text = std::fs::read_to_string(&crate_root).unwrap();
        let summary: Vec<&str> = text.lines().take_while(|l| l.starts_with("//!")).collect();
        assert!(
            !summary.is_empty() && summary[0].len() > 10,
            "{} does not open with a `//!` summary",
            crate_root.display()
        );
        for stale in ["So far", "(next)"] {
            assert!(
                !summary.iter().any(|l| l.contains(stale)),
                "{}: its summary still says {stale:?}",
                crate_root.display()
            );
        }
    }
}

/// What a crate links, as cargo resolves it for that crate alone (normal dependencies, with
/// features): one line per package, `name vX.Y.Z feature,feature`.
fn linked(package: &str) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .current_dir(root())
        .args([
            "tree",
            "--offline",
            "--edges",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p} {f}",
            "--package",
            package,
        ])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn values_sit_below_the_engine_so_codegen_and_plugins_link_no_grpc_client_or_process_support() {
    let property = linked("ferry-property");
    for heavy in ["tonic ", "tokio ", "ferry-engine ", "ferry-rpc "] {
        assert!(
            !property.lines().any(|l| l.starts_with(heavy)),
            "ferry-property links {heavy}:\n{property}"
        );
    }
    let codegen = linked("ferry-codegen");
    assert!(
        codegen.lines().any(|l| l.starts_with("ferry-property ")),
        "codegen uses the value model:\n{codegen}"
    );
    for heavy in ["tonic ", "tokio ", "ferry-engine "] {
        assert!(
            !codegen.lines().any(|l| l.starts_with(heavy)),
            "ferry-codegen links {heavy}:\n{codegen}"
        );
    }
    // Reading Terraform's files is pure: no IO, no plugins, no engine.
    let terraform = linked("ferry-terraform");
    for heavy in ["tonic ", "tokio ", "ferry-engine ", "ferry-rpc ", "ferry-store "] {
        assert!(
            !terraform.lines().any(|l| l.starts_with(heavy)),
            "ferry-terraform links {heavy}:\n{terraform}"
        );
    }
    // A plugin is a gRPC server, so it links tonic; it never starts processes, nor the engine.
    let plugin = linked("pulumi-resource-random");
    assert!(
        plugin.lines().any(|l| l.starts_with("ferry-property ")),
        "the plugin uses the value model:\n{plugin}"
    );
    assert!(
        !plugin.lines().any(|l| l.starts_with("ferry-engine ")),
        "the plugin links the engine:\n{plugin}"
    );
    let tokio = plugin.lines().find(|l| l.starts_with("tokio ")).expect("the plugin runs on tokio");
    assert!(
        !tokio.split([' ', ',']).any(|f| f == "process"),
        "the plugin links tokio's process support: {tokio}"
    );
}

/// A cargo profile's settings as the workspace manifest gives them, its parents' first
/// (`inherits`; `bench` inherits `release`), each `key = value` as written.
fn profile(manifest: &str, name: &str) -> std::collections::BTreeMap<String, String> {
    let own: Vec<(String, String)> = {
        let header = format!("[profile.{name}]");
        let mut inside = false;
        let mut settings = Vec::new();
        for line in manifest.lines() {
            let line = line.split('#').next().unwrap().trim();
            if line.starts_with('[') {
                inside = line == header;
            } else if let (true, Some((key, value))) = (inside, line.split_once('=')) {
                settings.push((key.trim().to_string(), value.trim().trim_matches('"').to_string()));
            }
        }
        settings
    };
    let parent = own
        .iter()
        .find(|(k, _)| k == "inherits")
        .map(|(_, v)| v.clone())
        .or_else(|| (name == "bench").then(|| "release".to_string()));
    let mut settings = parent.map(|p| profile(manifest, &p)).unwrap_or_default();
    settings.extend(own.into_iter().filter(|(k, _)| k != "inherits"));
    settings
}

#[test]
fn the_release_servers_plugins_build_as_the_engine_benchs_and_only_the_server_unwinds() {
    // The end-to-end benchmark holds the server's previews to a ratio of the engine bench's runs:
    // a plugin built otherwise on one side (unwinding cost the random plugin 15% of its CPU)
    // moves the ratio by what the build changes, not by what Ferry does.
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let (bench, plugin, server) = (
        profile(&manifest, "bench"),
        profile(&manifest, "plugin-release"),
        profile(&manifest, "server-release"),
    );
    assert_eq!(plugin, bench, "the plugin-release and bench profiles differ");
    assert_eq!(plugin.get("panic").map(String::as_str), Some("abort"), "{plugin:?}");
    assert_eq!(
        server.get("panic").map(String::as_str),
        Some("unwind"),
        "a panic in one request must not end the server: {server:?}"
    );
    let script = std::fs::read_to_string(root().join("scripts/lib.sh")).unwrap();
    assert!(
        script.contains("--profile plugin-release"),
        "scripts/lib.sh builds the release plugins in another profile"
    );
}

/// Every module of every workspace crate says what it is in its first line: the code map names
/// files, and a reader who opens one finds the same concept named at its top.
#[test]
fn every_module_opens_with_its_summary() {
    let root = root();
    let files = rust_files(&root);
    let mut bare = Vec::new();
    let mut checked = 0;
    for file in &files {
        let path = file.to_string_lossy();
        // Tests, benches, fuzz targets and build scripts are not modules of the design.
        if path.contains("/tests/")
            || path.contains("/benches/")
            || path.contains("/fuzz_targets/")
            || path.ends_with("build.rs")
            || !path.contains("/src/")
        {
            continue;
        }
        checked += 1;
        let text = std::fs::read_to_string(file).unwrap();
        if !text.lines().next().is_some_and(|l| l.starts_with("//!")) {
            bare.push(file.strip_prefix(&root).unwrap().display().to_string());
        }
    }
    assert!(checked > 100, "only {checked} modules were found");
    assert!(bare.is_empty(), "these modules do not open with a `//!` line: {}", bare.join(", "));
}

/// The shape stays readable: no source file over 800 lines (formatted at Rust's default width,
/// `rustfmt.toml`, so that width cannot hide length), and no type with over 40 methods
/// (the service and the store are handles per domain over one core, not one type of all). Read
/// as text, as `wc` and `grep` would: a method is an `fn` one level inside an `impl` block.
#[test]
fn no_file_is_over_800_lines_and_no_type_has_over_40_methods() {
    let root = root();
    // The lines are counted as the formatter writes them: at Rust's default width.
    let rustfmt = std::fs::read_to_string(root.join("rustfmt.toml")).unwrap_or_default();
    let width = rustfmt
        .lines()
        .find_map(|l| l.trim().strip_prefix("max_width"))
        .map(|w| w.trim_start_matches([' ', '=']).trim());
    assert!(width.is_none_or(|w| w == "100"), "rustfmt.toml sets max_width = {width:?}: Rust's default (100) is what lengths are measured at");
    let files = rust_files(&root);
    let mut long = Vec::new();
    let mut methods: std::collections::BTreeMap<String, usize> = Default::default();
    for file in &files {
        let path = file.to_string_lossy();
        if path.contains("/tests/") || !path.contains("/src/") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        if text.lines().count() > 800 {
            long.push(format!(
                "{} ({} lines)",
                file.strip_prefix(&root).unwrap().display(),
                text.lines().count()
            ));
        }
        let mut current: Option<String> = None;
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("impl") {
                // `impl Name {`, `impl<'a> Name<'a> {`, but not `impl Trait for Name {`.
                let rest = if rest.starts_with('<') {
                    rest.split_once("> ").map_or("", |(_, r)| r)
                } else {
                    rest.trim_start()
                };
                let header = rest.trim_end_matches('{').trim();
                current = (!header.contains(" for ")
                    && header.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
                .then(|| header.split('<').next().unwrap().to_string());
            } else if line.starts_with('}') {
                current = None;
            } else if let Some(name) = &current {
                let body = line.strip_prefix("    ").filter(|l| !l.starts_with(' '));
                let words: Vec<&str> =
                    body.map(|l| l.split_whitespace().take(4).collect()).unwrap_or_default();
                if words
                    .iter()
                    .take_while(|w| **w != "fn")
                    .all(|w| w.starts_with("pub") || ["async", "const", "unsafe"].contains(w))
                    && words.contains(&"fn")
                {
                    *methods
                        .entry(format!(
                            "{name} ({})",
                            file.parent().unwrap().strip_prefix(&root).unwrap().display()
                        ))
                        .or_default() += 1;
                }
            }
        }
    }
    // Methods of one type across the files of one folder (a crate's `impl` blocks of a type
    // may sit in several modules).
    let mut by_type: std::collections::BTreeMap<String, usize> = Default::default();
    for (key, n) in &methods {
        let (name, dir) = key.split_once(" (").unwrap();
        let crate_dir = dir.split("/src").next().unwrap();
        *by_type.entry(format!("{name} in {crate_dir}")).or_default() += n;
    }
    let crowded: Vec<String> = by_type
        .iter()
        .filter(|(_, n)| **n > 40)
        .map(|(t, n)| format!("{t}: {n} methods"))
        .collect();
    assert!(
        by_type.len() > 50,
        "only {} types with methods were found: is the scan still reading `impl` blocks?",
        by_type.len()
    );
    assert!(
        by_type.values().any(|n| *n > 20),
        "no type has over 20 methods: is the scan still counting them?"
    );
    assert!(long.is_empty(), "files over 800 lines: {}", long.join(", "));
    assert!(
        crowded.is_empty(),
        "types with over 40 methods (split them by domain): {}",
        crowded.join(", ")
    );
}

/// Architecture Invariant: every error a client meets has its status and code in the service's
/// one table (`ServiceError`'s `status_and_code`); the HTTP layer makes none of its own. An
/// `ApiError` is only ever made from a `ServiceError`: no constructor, no struct literal, no
/// code written in the server's files.
#[test]
fn the_http_layer_makes_no_error_codes_of_its_own() {
    let root = root();
    let mut files = Vec::new();
    walk(&root.join("server/src"), &mut files);
    let mut made = Vec::new();
    for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "rs")) {
        let text = std::fs::read_to_string(file).unwrap();
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        for (n, line) in text.lines().enumerate() {
            let literal = line.contains("ApiError {")
                && !line.trim_start().starts_with("pub struct")
                && !line.contains("impl ");
            // The one literal: `From<ServiceError>`'s, which takes the code from the table (the
            // literal read to its closing brace, however the formatter wraps it).
            let from_table = literal
                && name == "server/src/error.rs"
                && literal_fields(&text, line_start(&text, n)).contains("code: e.code()");
            if (literal && !from_table)
                || line.contains("ApiError::new(")
                || line.contains("ApiError::not_found(")
            {
                made.push(format!("{name}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        files.len() > 15,
        "only {} files under server/src: is the walk still reading them?",
        files.len()
    );
    assert!(made.is_empty(), "errors made outside the service's table:\n{}", made.join("\n"));
}

/// The byte offset where line `n` (from 0) of `text` starts.
fn line_start(text: &str, n: usize) -> usize {
    text.split_inclusive('\n').take(n).map(str::len).sum()
}

/// From `from`, the text of the first `{ … }` (nested braces matched): a struct literal's fields.
fn literal_fields(text: &str, from: usize) -> &str {
    let rest = &text[from..];
    let Some(open) = rest.find('{') else { return "" };
    let mut depth = 0usize;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &rest[open..open + i];
                }
            }
            _ => {}
        }
    }
    &rest[open..]
}

/// Where the app may make a `Resource` (serialized from the server to the browser by the order
/// it is made in): in a page's own component, or what such a component calls before its first
/// `Suspense`, each named here with why. Rendering on the server, Leptos may run a `Suspend`'s
/// body twice; resources made inside one were then numbered differently on the server and in
/// the browser, and a stack's Plans tab failed to hydrate (3 loads in 90 on two busy cores).
const RESOURCE_MAKERS: [(&str, &str); 10] = [
    ("HomePage", "a route's page"),
    ("SignInPage", "a route's page"),
    ("AccountPage", "a route's page"),
    ("InvitationPage", "a route's page"),
    ("PlanPage", "a route's page"),
    ("StackFrame", "every stack route's page, rendered by the route's component alone"),
    ("UserMenu", "the top bar's, outside every route"),
    ("PlanSection", "rendered by HomePage's view directly, outside its Suspense"),
    ("new", "StackPlansData::new, called by StackFrame before its Suspense"),
    ("detail_resource", "called by StackFrame before its Suspense"),
];

#[test]
fn the_app_makes_resources_only_at_its_pages_tops() {
    let makers: Vec<&str> = RESOURCE_MAKERS.iter().map(|(f, _)| *f).collect();
    let mut files = Vec::new();
    walk(&root().join("app/src"), &mut files);
    let mut misplaced = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for file in files.iter().filter(|p| p.extension().is_some_and(|e| e == "rs")) {
        let text = std::fs::read_to_string(file).unwrap();
        let mut function = String::new();
        for (n, line) in text.lines().enumerate() {
            if let Some(at) = line.find("fn ") {
                let name: String = line[at + 3..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    function = name;
                }
            }
            if line.contains("Resource::new(") && !line.contains("LocalResource::new(") {
                seen.insert(function.clone());
                if !makers.contains(&function.as_str()) {
                    let path = file.strip_prefix(root()).unwrap().display().to_string();
                    misplaced.push(format!("{path}:{} in `{function}`", n + 1));
                }
            }
        }
    }
    assert!(
        misplaced.is_empty(),
        "resources made where a Suspend's body may make them twice (make them in the page's \
         component, before its Suspense, and name that function in RESOURCE_MAKERS): {misplaced:?}"
    );
    // The list holds no name that makes nothing (a page renamed, a resource moved).
    let unused: Vec<&&str> = makers.iter().filter(|m| !seen.contains(**m)).collect();
    assert!(unused.is_empty(), "RESOURCE_MAKERS names functions that make no resource: {unused:?}");
}

/// The crates below the service that the HTTP layer never names: what a request asks reaches
/// them through the service.
const BELOW_THE_SERVICE: [&str; 8] = [
    "ferry-engine",
    "ferry-state",
    "ferry-store",
    "ferry-codegen",
    "ferry-backend",
    "ferry-terraform",
    "ferry-rpc",
    "ferry-property",
];

#[test]
fn the_server_depends_on_the_service_and_the_types_alone() {
    let manifest = std::fs::read_to_string(root().join("server/Cargo.toml")).unwrap();
    let dependencies = manifest
        .split("\n[dependencies]\n")
        .nth(1)
        .expect("server/Cargo.toml has [dependencies]")
        .split("\n[")
        .next()
        .unwrap();
    let named: Vec<&str> = dependencies
        .lines()
        .filter_map(|l| l.split(['=', ' ', '.']).next())
        .filter(|name| BELOW_THE_SERVICE.contains(name))
        .collect();
    assert!(named.is_empty(), "server/Cargo.toml depends on {named:?}: go through ferry-service");
    for name in ["ferry-service", "ferry-types"] {
        assert!(
            dependencies.lines().any(|l| l.starts_with(name)),
            "server/Cargo.toml no longer names {name} (the test reads the wrong section?)"
        );
    }
    let mut files = Vec::new();
    walk(&root().join("server/src"), &mut files);
    let mut reached = Vec::new();
    for file in files.iter().filter(|p| p.extension().is_some_and(|e| e == "rs")) {
        let text = std::fs::read_to_string(file).unwrap();
        for krate in BELOW_THE_SERVICE {
            if text.contains(&format!("{}::", krate.replace('-', "_"))) {
                reached.push(format!("{} names {krate}", file.display()));
            }
        }
    }
    assert!(reached.is_empty(), "{reached:?}");
}

/// The service's domains, lowest first, each a folder of `crates/ferry-service/src` and the
/// plain struct it holds (what `Ferry::wire` makes, in this order).
const DOMAINS: [(&str, &str); 9] = [
    ("jobs", "Jobs"),
    ("accounts", "Accounts"),
    ("stacks", "Stacks"),
    ("backends", "Backends"),
    ("webhooks", "Webhooks"),
    ("previews", "Previews"),
    ("workflow", "Workflow"),
    ("plans", "Plans"),
    ("discoveries", "Discoveries"),
];

/// The text of a Rust file without its comments (a doc comment may name a domain above).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(at) if !l[..at].contains('"') => &l[..at],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn names_word(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + word.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}

/// Each domain is a folder holding a plain struct (no `Deref` to a shared core, no macro-made
/// handle, and none in the store beneath them), and depends only on domains below it: none names one above, by its type or its
/// module, so calls run one way, as `Ferry::wire` hands the domains out.
#[test]
fn the_services_domains_stand_alone_and_depend_one_way() {
    let src = root().join("crates/ferry-service/src");
    let mut upward = Vec::new();
    for (rank, (folder, ty)) in DOMAINS.iter().enumerate() {
        let dir = src.join(folder);
        let root_file = std::fs::read_to_string(dir.join("mod.rs"))
            .unwrap_or_else(|e| panic!("the {ty} domain has no {}/mod.rs: {e}", dir.display()));
        assert!(
            names_word(&code_of(&root_file), &format!("pub struct {ty}")),
            "{folder}/mod.rs holds the {ty} struct"
        );
        let mut files = Vec::new();
        walk(&dir, &mut files);
        for file in files.iter().filter(|p| p.extension().is_some_and(|e| e == "rs")) {
            let code = code_of(&std::fs::read_to_string(file).unwrap());
            for (above, above_ty) in &DOMAINS[rank + 1..] {
                if names_word(&code, above_ty) || code.contains(&format!("crate::{above}")) {
                    upward.push(format!("{} ({ty}) names {above_ty}", file.display()));
                }
            }
        }
    }
    assert!(upward.is_empty(), "a domain calls one above it: {upward:#?}");
    // Each domain has service-level tests of its own, named after it.
    let tests = std::fs::read_to_string(root().join("crates/ferry-service/tests/domains.rs"))
        .expect("the service's domain tests");
    for (folder, ty) in DOMAINS {
        assert!(
            tests.contains(&format!("async fn {folder}_")),
            "crates/ferry-service/tests/domains.rs has no test of {ty} (`async fn {folder}_…`)"
        );
    }
    // The store's handles (`store.stacks()`, `store.jobs()`, …) are plain structs too.
    let mut files = Vec::new();
    walk(&src, &mut files);
    walk(&root().join("crates/ferry-store/src"), &mut files);
    for file in files.iter().filter(|p| p.extension().is_some_and(|e| e == "rs")) {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        assert!(
            !code.contains("ops::Deref") && !code.contains("impl Deref"),
            "{} reaches a shared core through Deref",
            file.display()
        );
        assert!(!code.contains("macro_rules!"), "{} makes types by macro", file.display());
    }
}

/// The workspace crates a manifest's `[dependencies]` name (of `crates`).
fn workspace_dependencies(
    manifest: &str,
    crates: &std::collections::BTreeSet<String>,
) -> std::collections::BTreeSet<String> {
    let Some(section) = manifest.split("\n[dependencies]\n").nth(1) else {
        return Default::default();
    };
    section
        .split("\n[")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split(['=', ' ', '.']).next())
        .filter(|name| crates.contains(*name))
        .map(str::to_string)
        .collect()
}

/// ARCHITECTURE.md's crate graph is the one the manifests make: every crate of the repository,
/// each with exactly the workspace crates it depends on.
#[test]
fn the_crate_graph_is_the_manifests() {
    let root = root();
    let mut dirs = vec![root.join("app"), root.join("server")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        if entry.path().join("Cargo.toml").exists() {
            dirs.push(entry.path());
        }
    }
    let manifests: Vec<(String, String)> = dirs
        .iter()
        .map(|dir| {
            let text = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
            let name = text
                .lines()
                .find_map(|l| l.strip_prefix("name = "))
                .unwrap_or_else(|| panic!("{} has no name", dir.display()))
                .trim_matches('"')
                .to_string();
            (name, text)
        })
        .collect();
    let crates = manifests.iter().map(|(name, _)| name.clone()).collect();
    let made: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = manifests
        .iter()
        .map(|(name, text)| (name.clone(), workspace_dependencies(text, &crates)))
        .collect();
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let at = doc.find("### The crate graph").expect("ARCHITECTURE.md draws the crate graph");
    let block = doc[at..]
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the crate graph is a text block");
    let drawn: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, deps) = l.split_once('→').unwrap_or_else(|| panic!("`{l}` has no →"));
            (name.trim().to_string(), deps.split_whitespace().map(str::to_string).collect())
        })
        .collect();
    assert!(made.len() > 10, "only {} crates were found", made.len());
    assert_eq!(drawn, made, "ARCHITECTURE.md's crate graph (left) is not the manifests' (right)");
}

/// The service asks providers through the engine's typed calls (`ferry_engine::inquiry`, the
/// deployment's steps), never in `pulumirpc` messages of its own.
#[test]
fn the_service_speaks_to_providers_through_the_engine() {
    let manifest = std::fs::read_to_string(root().join("crates/ferry-service/Cargo.toml")).unwrap();
    assert!(
        !manifest.lines().any(|l| l.starts_with("ferry-rpc")),
        "crates/ferry-service/Cargo.toml depends on ferry-rpc"
    );
    let mut files = Vec::new();
    walk(&root().join("crates/ferry-service/src"), &mut files);
    let speaking: Vec<String> = files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            text.contains("pulumirpc") || text.contains("ferry_rpc")
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(speaking.is_empty(), "{speaking:?} build provider messages");
}

/// The browser speaks the API in `ferry_types::api`'s terms alone: no path of its own, no body
/// built with `json!`, no request helper but the one client (Monaco's options, which are
/// JavaScript objects and no request, are `monaco_glue.rs`'s).
#[test]
fn the_app_calls_the_api_through_its_typed_client_alone() {
    let mut files = Vec::new();
    walk(&root().join("app/src"), &mut files);
    let mut found = Vec::new();
    for file in files.iter().filter(|p| p.extension().is_some_and(|e| e == "rs")) {
        let text = std::fs::read_to_string(file).unwrap();
        let name = file.strip_prefix(root()).unwrap().display().to_string();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if code.contains("\"/api/") {
                found.push(format!("{name}:{}: a path of the API: use ferry_types::api", n + 1));
            }
            if code.contains("json!") && !name.ends_with("monaco_glue.rs") {
                found.push(format!("{name}:{}: a body built with json!: use its type", n + 1));
            }
            if reads_a_field_by_name(code) {
                found.push(format!(
                    "{name}:{}: a JSON value read by a field's name: use its type",
                    n + 1
                ));
            }
            if code.contains("fetch_with_str")
                && !name.ends_with("client.rs")
                && !name.ends_with("browser.rs")
            {
                found.push(format!("{name}:{}: a request beside the client", n + 1));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
    assert!(
        std::fs::read_to_string(root().join("app/src/client.rs")).unwrap().contains("Call<"),
        "app/src/client.rs no longer calls typed endpoints (the test reads the wrong file?)"
    );
}

/// Whether `code` indexes a value by a field's name (`answer["counts"]`): what a JSON value
/// read without its type looks like.
fn reads_a_field_by_name(code: &str) -> bool {
    code.match_indices("[\"").any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let indexed =
            before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ')' || c == ']');
        let rest = &code[at + 2..];
        indexed
            && rest.find('"').is_some_and(|end| {
                let word = &rest[..end];
                !word.is_empty()
                    && word.chars().all(|c| c.is_alphanumeric() || c == '_')
                    && rest[end + 1..].starts_with(']')
            })
    })
}

#[test]
fn a_field_read_by_name_is_told_from_other_brackets() {
    assert!(reads_a_field_by_name(r#"let props = ty.list_inputs["properties"].as_object();"#));
    assert!(reads_a_field_by_name(r#"v["a"]["b"]"#));
    assert!(!reads_a_field_by_name(r#"let words = ["properties", "required"];"#));
    assert!(!reads_a_field_by_name(r#"js(&serde_json::json!([":", " "]))"#));
}

/// The API's routes are exactly `ferry_types::api`'s endpoints: each one routed, with its
/// method, and no route beside them.
#[tokio::test]
async fn the_api_routes_are_the_endpoints_the_types_declare() {
    use std::collections::BTreeSet;
    let table = crate::common::access_table().await;
    let prefix = ferry_types::api::PREFIX;
    let routed: BTreeSet<(String, String)> = table
        .decisions()
        .filter_map(|d| Some((d.method.to_string(), d.path.strip_prefix(prefix)?.to_string())))
        .collect();
    let declared: BTreeSet<(String, String)> = ferry_types::api::ALL
        .iter()
        .map(|e| (e.method.as_str().to_string(), e.path.to_string()))
        .collect();
    assert_eq!(routed.difference(&declared).collect::<Vec<_>>(), Vec::<&(String, String)>::new());
    assert_eq!(declared.difference(&routed).collect::<Vec<_>>(), Vec::<&(String, String)>::new());
    assert_eq!(routed.len(), ferry_types::api::ALL.len());
}

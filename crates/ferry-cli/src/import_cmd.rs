//! `ferry import`: preview an import spec, or with `--from terraform` a Terraform or OpenTofu
//! state, against a stack (by name, from Ferry's store, or a state file) and commit it unless
//! `--preview-only`.

use std::path::PathBuf;

use ferry_engine::deploy::PlanScope;
use ferry_engine::import::PlannedResource;
use ferry_service::{PreviewRequest, PreviewSource};
use ferry_types::api::PreviewBody;

use crate::cli::{env_passphrase, open_stack, print_json, write_atomically, Error};

#[derive(clap::Args)]
pub struct ImportArgs {
    /// The stack: a name in Ferry's store (`org/project/stack`) or a Pulumi state file.
    #[arg(long)]
    stack: String,
    /// What the file is: an import spec (`pulumi import --file` format), or `terraform`: a
    /// Terraform or OpenTofu state file (or `show -json` output), every instance a plugin maps
    /// imported with its recorded attributes as its inputs.
    #[arg(long, value_enum, default_value = "spec")]
    from: ImportFrom,
    /// The file to import from.
    #[arg(long)]
    file: Option<PathBuf>,
    /// The same, as an argument (`ferry import --from terraform terraform.tfstate --stack …`).
    /// With `--from terraform`, also where a backend keeps the state: an S3 backend's
    /// `s3://<bucket>/<key>?endpoint=…&region=…` (credentials from `AWS_*`), or a local
    /// backend's `file:///…/terraform.tfstate`.
    #[arg(value_name = "FILE", conflicts_with = "file")]
    path: Option<PathBuf>,
    /// With a backend's state: the workspace to read (`default`: the state at the key).
    #[arg(long)]
    workspace: Option<String>,
    /// With an S3 backend's state: where it keeps the other workspaces (its
    /// `workspace_key_prefix`).
    #[arg(long, default_value = ferry_backend::terraform::DEFAULT_WORKSPACE_KEY_PREFIX)]
    workspace_key_prefix: String,
    /// With `--from terraform`: import instances Terraform marked tainted too.
    #[arg(long)]
    include_tainted: bool,
    /// With `--from terraform`: import deposed objects too.
    #[arg(long)]
    include_deposed: bool,
    /// With `--from terraform`: the folder of the configuration (`.tf` files) the state was
    /// applied from; references between resources and variables become references and config
    /// in the program and the code, and what the state contradicts is said on each row.
    #[arg(long, value_name = "DIR")]
    configuration: Option<PathBuf>,
    /// Show the preview; write nothing.
    #[arg(long)]
    preview_only: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// With a state file: where to write the committed state (the input is never overwritten).
    #[arg(long)]
    out_state: Option<PathBuf>,
    /// Write code for the imported resources to this file (`.zip`: a runnable project).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The code's language: ts, python, go, csharp or yaml (default: from --out's extension).
    #[arg(long)]
    lang: Option<String>,
    /// `cli` (the stack holds the resources: `protect`) or `code-first` (the `import` option).
    #[arg(long, default_value = "cli")]
    code_style: String,
    #[command(flatten)]
    store: crate::cli::StoreArgs,
    /// A folder of provider plugins, searched after the `ferry` binary's own folder.
    #[arg(long = "plugin-dir", env = "FERRY_PLUGIN_DIR")]
    plugin_dirs: Vec<PathBuf>,
}

/// What `ferry import` reads.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ImportFrom {
    Spec,
    Terraform,
}

pub async fn run(args: ImportArgs) -> Result<(), Error> {
    let file = args
        .file
        .clone()
        .or(args.path.clone())
        .ok_or("say which file to import from: --file <file> (or the file as an argument)")?;
    let named = file.to_string_lossy();
    let remote = args.from == ImportFrom::Terraform
        && (named.starts_with("s3://") || named.starts_with("file://"));
    if args.workspace.is_some() && !remote {
        return Err("--workspace names a workspace of a backend's state: give the state's s3:// or file:// URL".into());
    }
    let bytes = if remote {
        remote_state(&named, args.workspace.as_deref(), &args.workspace_key_prefix).await?
    } else {
        std::fs::read(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?
    };
    // The file's own problems first: they need no stack.
    let spec = match args.from {
        ImportFrom::Spec => {
            let text = String::from_utf8(bytes.clone())
                .map_err(|e| format!("{}: not UTF-8 text: {e}", file.display()))?;
            let parsed = ferry_engine::import_spec::parse_import_spec(&text)
                .map_err(|e| format!("{}: {e}", file.display()))?;
            Some((text, parsed))
        }
        ImportFrom::Terraform => {
            ferry_terraform::read_state(&bytes).map_err(|e| {
                format!("{}: not a Terraform state Ferry reads: {e}", file.display())
            })?;
            None
        }
    };
    let passphrase = env_passphrase();
    let state_file = PathBuf::from(&args.stack);
    let from_file = state_file.is_file();
    if from_file && !args.preview_only && args.out_state.is_none() {
        return Err("committing into a state file needs --out-state <path> (the input file is never overwritten); or use --preview-only".into());
    }

    let (service, stack_id) =
        open_stack(&args.stack, &args.store, &args.plugin_dirs, passphrase.clone()).await?;
    let code_request = code_request(&args)?;
    // A migration's rows, every one of them, for `--json` (the table is printed as it comes).
    let mut terraform_rows = None;
    let record = match spec {
        Some((text, spec)) => {
            let request = PreviewRequest {
                source: PreviewSource::Spec { text, spec, strategy: Default::default() },
                scope: PlanScope::Imports,
                progress: None,
                turn: None,
            };
            service.previews().preview(&stack_id, request).await?
        }
        None => {
            let choices = ferry_types::api::MigrationChoices {
                title: None,
                include_tainted: args.include_tainted,
                include_deposed: args.include_deposed,
            };
            let configuration = match &args.configuration {
                Some(dir) => configuration_files(dir)?,
                None => Vec::new(),
            };
            let migration = service
                .plans()
                .terraform_migration(&stack_id, &bytes, &configuration, &choices)
                .await?;
            if !args.json {
                print_migration(&migration.rows);
            }
            // On stderr, so that `--json` prints only JSON.
            for note in &migration.notes {
                eprintln!("note: {note}");
            }
            let Some(program) = migration.program else {
                if args.json {
                    println!(
                        "{}",
                        serde_json::to_string_pretty(
                            &serde_json::json!({ "terraform": migration.rows })
                        )?
                    );
                }
                return Err(format!(
                    "nothing in {} maps to a Pulumi type: see each instance's reason above",
                    file.display()
                )
                .into());
            };
            terraform_rows = Some(migration.rows);
            let program = ferry_service::ProgramRequest {
                source: ferry_service::ProgramSource::Yaml(program),
                config: Default::default(),
                mapping: None,
                passphrase: passphrase.clone(),
                prior: Some(migration.prior),
            };
            let request = PreviewRequest {
                source: PreviewSource::Program(program),
                scope: PlanScope::Imports,
                progress: None,
                turn: None,
            };
            service.previews().preview(&stack_id, request).await?
        }
    };
    let outcome = if args.preview_only {
        None
    } else {
        Some(service.workflow().commit_preview(&record.id, passphrase.clone(), false).await)
    };

    if args.json {
        print_json(&record, outcome.as_ref(), terraform_rows.as_deref())?;
    } else {
        print_preview(&record.plan.view());
    }
    if let (Some(out), Some(request)) = (&args.out, &code_request) {
        let code = service
            .previews()
            .preview_code(&record.id, request, passphrase.as_deref())
            .await
            .map_err(|e| format!("code: {e}"))?;
        write_atomically(out, &code.bytes, None)?;
        if !args.json {
            println!("\nWrote {} code to {}.", request.language.id(), out.display());
            for c in &code.report.config_commands {
                println!("  secret read from config; set it with: {c}");
            }
            if !code.report.elided.is_empty() {
                println!(
                    "  left out {} propert(ies) that only repeat a default or a zero value",
                    code.report.elided.len()
                );
            }
            for r in &code.report.references {
                println!(
                    "  `{}.{}` refers to `{}.{}` (turn off: exclude {})",
                    r.resource, r.property, r.target, r.target_property, r.key
                );
            }
            for w in &code.report.warnings {
                println!("  warning: {w}");
            }
        }
    }
    match outcome {
        None => {
            if !args.json {
                println!("\nPreview only: nothing was written to the stack.");
            }
        }
        Some(Err(e)) => return Err(format!("commit refused: {e}").into()),
        Some(Ok(o)) => {
            if let Some(out) = &args.out_state {
                let export =
                    service.stacks().export_text(&stack_id, Some(o.summary.version)).await?;
                write_atomically(out, export.as_bytes(), None)?;
                if !args.json {
                    println!(
                        "\nCommitted {} resource(s); the new state is in {}.",
                        o.added,
                        out.display()
                    );
                }
            } else if !args.json {
                println!(
                    "\nCommitted {} resource(s): stack `{}` is now at version {}.",
                    o.added, o.summary.name, o.summary.version
                );
            }
        }
    }
    Ok(())
}

/// The state of `workspace` of the Terraform backend whose default state is at `url`, read
/// as the user running the command may (their machine, their `AWS_*` credentials, as
/// Terraform would read it).
async fn remote_state(
    url: &str,
    workspace: Option<&str>,
    workspace_key_prefix: &str,
) -> Result<Vec<u8>, Error> {
    use ferry_backend::terraform::{workspace_state, DEFAULT_WORKSPACE};
    let state = ferry_backend::Location::parse(url)?;
    let at = workspace_state(&state, workspace.unwrap_or(DEFAULT_WORKSPACE), workspace_key_prefix)?;
    Ok(ferry_backend::read_file(&at, 1 << 30).await?)
}

/// What `--out`, `--lang` and `--code-style` ask for.
fn code_request(args: &ImportArgs) -> Result<Option<ferry_service::CodeRequest>, Error> {
    let Some(out) = &args.out else {
        if args.lang.is_some() {
            return Err("--lang needs --out <file>".into());
        }
        return Ok(None);
    };
    let ext = out.extension().and_then(|e| e.to_str()).unwrap_or("");
    let from_ext = match ext {
        "ts" => Some("ts"),
        "py" => Some("python"),
        "go" => Some("go"),
        "cs" => Some("csharp"),
        "yaml" | "yml" => Some("yaml"),
        _ => None,
    };
    let lang = args.lang.as_deref().or(from_ext).ok_or_else(|| {
        format!("say which language {} is in: --lang ts|python|go|csharp|yaml", out.display())
    })?;
    let language = ferry_codegen::Language::parse(lang)
        .ok_or_else(|| format!("unknown language `{lang}`: use ts, python, go, csharp or yaml"))?;
    let style = match args.code_style.as_str() {
        "cli" => ferry_codegen::CodeStyle::Cli,
        "code-first" => ferry_codegen::CodeStyle::CodeFirst,
        other => return Err(format!("unknown code style `{other}`: use cli or code-first").into()),
    };
    Ok(Some(ferry_service::CodeRequest {
        language,
        zip: ext == "zip",
        style,
        ..Default::default()
    }))
}

/// A preview as a table: a spec's entries with their statuses and IDs (or why not), or a
/// program's steps.
fn print_preview(preview: &PreviewBody<'_>) {
    let preview = match preview {
        PreviewBody::Spec(spec) => spec,
        PreviewBody::Program(program) => return crate::preview_cmd::print_plan(&program.plan),
    };
    let rows = &preview.resources;
    let width =
        |f: &dyn Fn(&PlannedResource) -> usize| rows.iter().map(f).max().unwrap_or(0).max(4);
    let (ws, wt, wn) = (
        width(&|r| r.status.as_str().len()).max(6),
        width(&|r| r.type_.len()),
        width(&|r| r.name.len()),
    );
    println!("{:ws$}  {:wt$}  {:wn$}  ID / NOTE", "STATUS", "TYPE", "NAME");
    for r in rows {
        let note = r.message.as_deref().or(r.id.as_deref()).unwrap_or("");
        println!("{:ws$}  {:wt$}  {:wn$}  {note}", r.status.as_str(), r.type_, r.name);
        for w in &r.warnings {
            println!("{:ws$}  warning: {w}", "");
        }
    }
    let counts: Vec<String> =
        preview.counts.iter().map(|(status, n)| format!("{n} {status}")).collect();
    println!("\n{} resource(s): {}", rows.len(), counts.join(", "));
}

/// The Terraform instances and what became of each.
/// The `.tf` files under `dir` (its subfolders too, where local modules live), by their path
/// inside it; hidden folders (`.terraform`, which holds downloaded modules and providers) are
/// not read.
fn configuration_files(
    dir: &std::path::Path,
) -> Result<Vec<ferry_terraform::ConfigurationFile>, Error> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder).map_err(|e| {
            format!("cannot read the configuration's folder {}: {e}", folder.display())
        })?;
        for entry in entries {
            let path = entry.map_err(|e| format!("{}: {e}", folder.display()))?.path();
            let hidden = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if path.is_dir() && !hidden {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "tf") {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                let inside =
                    path.strip_prefix(dir).unwrap_or(&path).to_string_lossy().replace('\\', "/");
                files.push(ferry_terraform::ConfigurationFile { path: inside, text });
            }
        }
    }
    if files.is_empty() {
        return Err(format!("{} holds no `.tf` file", dir.display()).into());
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

fn print_migration(rows: &[ferry_terraform::Row]) {
    let width =
        |f: &dyn Fn(&ferry_terraform::Row) -> usize| rows.iter().map(f).max().unwrap_or(0).max(7);
    let (wa, ws) = (width(&|r| r.address.len()), width(&|r| format!("{:?}", r.status).len() + 2));
    println!("{:wa$}  {:ws$}  PULUMI TYPE / REASON", "ADDRESS", "STATUS");
    for r in rows {
        let status = serde_json::to_value(r.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let mut note = match (&r.type_, &r.reason) {
            (Some(t), None) => t.clone(),
            (Some(t), Some(why)) => format!("{t}: {why}"),
            (None, Some(why)) => why.clone(),
            (None, None) => String::new(),
        };
        if !r.unknown_attributes.is_empty() {
            note.push_str(&format!(
                "; left out, unknown to the provider's schema: {}",
                r.unknown_attributes.join(", ")
            ));
        }
        if !r.dependencies_not_imported.is_empty() {
            note.push_str(&format!(
                "; depends on what is not imported: {}",
                r.dependencies_not_imported.join(", ")
            ));
        }
        for said in &r.configuration_notes {
            note.push_str(&format!("; configuration: {said}"));
        }
        println!("{:wa$}  {status:ws$}  {note}", r.address);
    }
    println!();
}

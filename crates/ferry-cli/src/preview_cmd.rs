//! `ferry preview --program`: preview a Pulumi YAML program against a stack (by name, from
//! Ferry's store, or a state file); write the import spec of its would-be creates
//! (`--import-file`), record or apply a resource mapping, and commit on request; or identify
//! its would-be creates (`--identify`): each tried as an import under the ID its type's recipe
//! builds, the table printed (and with `--record-mapping`, the IDs found written).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ferry_engine::deploy::{ConfigValue, DeploymentPlan, Step};
use ferry_service::{PreviewRequest, PreviewSource, ProgramRequest, ProgramSource};
use serde_json::Value;

use crate::cli::{env_passphrase, open_stack, print_json, write_atomically, Error};

#[derive(clap::Args)]
pub struct PreviewArgs {
    /// The program: a project folder (with `Pulumi.yaml`, and `Main.yaml` if the program is
    /// there) or a YAML file.
    #[arg(long)]
    program: PathBuf,
    /// The stack: a name in Ferry's store (`org/project/stack`) or a Pulumi state file.
    #[arg(long)]
    stack: String,
    /// Stack config, `key=value` (repeatable).
    #[arg(long = "config", value_name = "KEY=VALUE")]
    config: Vec<String>,
    /// Secret stack config, `key=value` (repeatable); never printed or stored in plain text.
    #[arg(long = "secret", value_name = "KEY=VALUE")]
    secrets: Vec<String>,
    /// Write an import spec with a placeholder ID for every resource the preview would create.
    #[arg(long)]
    import_file: Option<PathBuf>,
    /// A mapping of resource names to IDs (JSON): those creates become imports; resources
    /// without an ID are skipped.
    #[arg(long)]
    mapping: Option<PathBuf>,
    /// Write the mapping file to fill in (every would-be create's name, empty IDs; with
    /// --identify, the IDs found filled in); import nothing.
    #[arg(long)]
    record_mapping: Option<PathBuf>,
    /// Identify the resources the program would create: build each one's import ID from its
    /// type's recipe and the program's values, try it with the provider's Read, and print what
    /// was found. Stores and commits nothing.
    #[arg(long, conflicts_with_all = ["commit", "import_file"])]
    identify: bool,
    /// What the program stands for: `whole-stack` (as `pulumi preview`: the stack's resources
    /// it does not declare are deleted) or `imports` (it declares only what to import or add;
    /// the rest of the stack is left as it is, and may be named by URN).
    #[arg(long, value_enum, default_value = "whole-stack")]
    scope: ScopeArg,
    /// Commit the plan when it holds only imports and unchanged resources.
    #[arg(long)]
    commit: bool,
    /// With --commit: also run creates, updates, replacements and deletes.
    #[arg(long, requires = "commit")]
    apply: bool,
    /// With a state file and --commit: where to write the committed state.
    #[arg(long)]
    out_state: Option<PathBuf>,
    /// Print the stored preview as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    store: crate::cli::StoreArgs,
    #[arg(long = "plugin-dir", env = "FERRY_PLUGIN_DIR")]
    plugin_dirs: Vec<PathBuf>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ScopeArg {
    Imports,
    WholeStack,
}

impl From<ScopeArg> for ferry_engine::deploy::PlanScope {
    fn from(s: ScopeArg) -> Self {
        match s {
            ScopeArg::Imports => ferry_engine::deploy::PlanScope::Imports,
            ScopeArg::WholeStack => ferry_engine::deploy::PlanScope::WholeStack,
        }
    }
}

fn read_program(path: &Path) -> Result<String, Error> {
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
    };
    if path.is_dir() {
        for main in ["Main.yaml", "Main.yml"] {
            if path.join(main).is_file() {
                return Ok(read(&path.join(main))?);
            }
        }
        for project in ["Pulumi.yaml", "Pulumi.yml"] {
            if path.join(project).is_file() {
                return Ok(read(&path.join(project))?);
            }
        }
        return Err(format!("{} has no Pulumi.yaml", path.display()).into());
    }
    Ok(read(path)?)
}

fn config_pairs(
    pairs: &[String],
    secret: bool,
    into: &mut BTreeMap<String, ConfigValue>,
) -> Result<(), Error> {
    for pair in pairs {
        let (k, v) =
            pair.split_once('=').ok_or_else(|| format!("config `{pair}` is not `key=value`"))?;
        into.insert(k.trim().to_string(), ConfigValue { value: v.to_string(), secret });
    }
    Ok(())
}

pub async fn run(args: PreviewArgs) -> Result<(), Error> {
    let text = read_program(&args.program)?;
    let file = args.program.display().to_string();
    // The program's own problems first: they need no stack.
    ferry_engine::program::parse_program(&file, &text).map_err(|e| e.to_string())?;
    let mut config = BTreeMap::new();
    config_pairs(&args.config, false, &mut config)?;
    config_pairs(&args.secrets, true, &mut config)?;
    let mapping: Option<BTreeMap<String, String>> = match &args.mapping {
        Some(p) => Some(
            serde_json::from_str(
                &std::fs::read_to_string(p)
                    .map_err(|e| format!("cannot read {}: {e}", p.display()))?,
            )
            .map_err(|e| {
                format!("{}: a mapping is a JSON object of resource names to IDs: {e}", p.display())
            })?,
        ),
        None => None,
    };
    let from_file = Path::new(&args.stack).is_file();
    if from_file && args.commit && args.out_state.is_none() {
        return Err("committing into a state file needs --out-state <path> (the input file is never overwritten)".into());
    }
    let passphrase = env_passphrase();
    let (service, stack_id) =
        open_stack(&args.stack, &args.store, &args.plugin_dirs, passphrase.clone()).await?;
    let program = ProgramRequest {
        source: ProgramSource::Yaml(text),
        config,
        mapping,
        passphrase: passphrase.clone(),
        prior: None,
    };
    if args.identify {
        return identify(&service, &stack_id, program, &args).await;
    }
    let request = PreviewRequest {
        source: PreviewSource::Program(program),
        scope: args.scope.into(),
        progress: None,
        turn: None,
    };
    let record = service.previews().preview(&stack_id, request).await.map_err(|e| e.to_string())?;
    let stored = &record.plan;
    if let Some(out) = &args.import_file {
        write_atomically(out, serde_json::to_string_pretty(&stored.import_file)?.as_bytes(), None)?;
    }
    if let Some(out) = &args.record_mapping {
        write_atomically(out, serde_json::to_string_pretty(&stored.mapping)?.as_bytes(), None)?;
    }
    let outcome = if args.commit && args.record_mapping.is_none() {
        Some(service.workflow().commit_preview(&record.id, passphrase, args.apply).await)
    } else {
        None
    };
    if args.json {
        print_json(&record, outcome.as_ref(), None)?;
    } else {
        print_plan(&stored.plan);
        if let Some(out) = &args.import_file {
            let n = ferry_engine::deploy::mapping::would_create(&stored.plan).count();
            println!("\nWrote {n} would-be create(s) to {} with placeholder IDs: fill them in, then `ferry import --file`.", out.display());
        }
        if let Some(out) = &args.record_mapping {
            println!(
                "\nWrote the mapping to fill in to {}; pass it back with --mapping.",
                out.display()
            );
        }
    }
    match outcome {
        None if !args.json => println!("\nPreview only: nothing was written."),
        None => {}
        Some(Err(e)) => return Err(format!("commit refused: {e}").into()),
        Some(Ok(o)) => {
            if let Some(out) = &args.out_state {
                let export =
                    service.stacks().export_text(&stack_id, Some(o.summary.version)).await?;
                write_atomically(out, export.as_bytes(), None)?;
            }
            if !args.json {
                println!(
                    "\nCommitted: stack `{}` is now at version {}.",
                    o.summary.name, o.summary.version
                );
            }
        }
    }
    Ok(())
}

/// `--identify`: the table, progress on stderr as each resource is done.
async fn identify(
    service: &std::sync::Arc<ferry_service::Ferry>,
    stack_id: &str,
    program: ProgramRequest,
    args: &PreviewArgs,
) -> Result<(), Error> {
    use ferry_types::identify::{IdentificationEvent, IdentificationJob};
    let started = service
        .previews()
        .start_identification(stack_id, program, BTreeMap::new())
        .await
        .map_err(|e| e.to_string())?;
    // Followed to its end (the progress, the rows), then read whole.
    let mut updates =
        std::pin::pin!(service.jobs().follow_job::<IdentificationJob>(&started.id, None).await?);
    let mut done = 0usize;
    while let Some(update) = futures_util::StreamExt::next(&mut updates).await {
        if let ferry_service::JobUpdate::Event(json) = update {
            if !args.json
                && matches!(serde_json::from_str(&json), Ok(IdentificationEvent::Resource { .. }))
            {
                done += 1;
                if done.is_multiple_of(100) {
                    eprintln!("identified {done} of {} resource(s)…", started.total);
                }
            }
        }
    }
    let job = service.jobs().get::<IdentificationJob>(&started.id, None).await?;
    let found = match (job.identifications, job.error) {
        (Some(found), _) => found,
        (None, error) => {
            return Err(error
                .unwrap_or_else(|| format!("the identification ended {}", job.status.as_str()))
                .into())
        }
    };
    if let Some(out) = &args.record_mapping {
        write_atomically(out, serde_json::to_string_pretty(&found.mapping())?.as_bytes(), None)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&found)?);
        return Ok(());
    }
    let rows = &found.rows;
    let width = |f: &dyn Fn(&ferry_types::identify::IdentificationRow) -> usize, min: usize| {
        rows.iter().map(f).max().unwrap_or(0).max(min)
    };
    let (ws, wt, wn, wi) = (
        width(&|r| r.status.as_str().len(), 6),
        width(&|r| r.type_.len(), 4),
        width(&|r| r.name.len(), 4),
        width(&|r| r.id.as_deref().map_or(1, str::len), 2),
    );
    println!("{:ws$}  {:wt$}  {:wn$}  {:wi$}  SOURCE / WHY", "STATUS", "TYPE", "NAME", "ID");
    for r in rows {
        let source = r.attempt.source.map(|s| format!("{s:?}").to_lowercase()).unwrap_or_default();
        let why = match (&r.attempt.reason, r.attempt.recipe.as_deref()) {
            (Some(reason), _) => format!("{source} {reason}").trim().to_string(),
            (None, Some(recipe)) => format!("{source} {recipe}"),
            (None, None) => source,
        };
        println!(
            "{:ws$}  {:wt$}  {:wn$}  {:wi$}  {why}",
            r.status.as_str(),
            r.type_,
            r.name,
            r.id.as_deref().unwrap_or("-")
        );
        for d in &r.differences {
            let show =
                |v: &Option<Value>| v.as_ref().map_or("(unset)".to_string(), Value::to_string);
            println!(
                "{:ws$}  differs: {}: program {} / read {}",
                "",
                d.path,
                show(&d.program),
                show(&d.read)
            );
        }
    }
    println!(
        "\n{} identified, {} found with differences, {} unidentified, {} failed. Nothing was stored or changed.",
        found.identified, found.differs, found.unidentified, found.failed
    );
    if let Some(out) = &args.record_mapping {
        println!("Wrote the mapping to {} (the IDs found, blanks for the rest); pass it back with --mapping.", out.display());
    }
    Ok(())
}

/// A program's plan as a table: each step's operation, resource and note, then the program's
/// errors, what the mapping left out and the counts.
pub(crate) fn print_plan(plan: &DeploymentPlan) {
    let width = |f: &dyn Fn(&Step) -> usize| plan.steps.iter().map(f).max().unwrap_or(0).max(4);
    let (wo, wt, wn) = (
        width(&|s| s.op.as_str().len()).max(2),
        width(&|s| s.type_.len()),
        width(&|s| s.name.len()),
    );
    println!("{:wo$}  {:wt$}  {:wn$}  NOTE", "OP", "TYPE", "NAME");
    for s in &plan.steps {
        let note = match (&s.error, s.changed.is_empty()) {
            (Some(e), _) => format!("error: {e}"),
            (None, true) => String::new(),
            (None, false) => format!("[{}]", s.changed.join(", ")),
        };
        println!("{:wo$}  {:wt$}  {:wn$}  {note}", s.op.as_str(), s.type_, s.name);
        for w in &s.warnings {
            println!("{:wo$}  warning: {w}", "");
        }
    }
    for e in &plan.errors {
        println!("error: {}:{}: {}: {}", e.file, e.line, e.path, e.message);
    }
    for s in &plan.skipped {
        println!("skipped (no ID in the mapping): {} {}", s.type_, s.name);
    }
    let counts: Vec<String> = plan.counts.iter().map(|(op, n)| format!("{n} {op}")).collect();
    println!("\n{} step(s): {}", plan.steps.len(), counts.join(", "));
    if plan.untouched > 0 {
        println!("{} resource(s) in the stack, untouched", plan.untouched);
    }
}

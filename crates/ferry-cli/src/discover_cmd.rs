//! `ferry discover`: list what a provider finds for some resource types, mark what the stack
//! (or another stack Ferry holds) already manages, and write the rest as an import spec.

use std::path::PathBuf;

use ferry_service::{DiscoveryEvent, Selected, TypeQuery};
use serde_json::{Map, Value};

use crate::cli::{env_passphrase, open_stack, write_atomically, Error};

#[derive(clap::Args)]
pub struct DiscoverArgs {
    /// The stack: a name in Ferry's store (`org/project/stack`) or a Pulumi state file.
    #[arg(long)]
    stack: String,
    /// A resource type to list (repeatable), like `postgresql:index/role:Role`.
    #[arg(long = "type", required = true)]
    types: Vec<String>,
    /// A filter for List, `key=value` (repeatable; applies to every type; the schema's
    /// `listInputs` say which keys a type takes).
    #[arg(long = "query", value_parser = parse_query)]
    query: Vec<(String, String)>,
    /// At most this many results per type.
    #[arg(long)]
    limit: Option<i64>,
    /// Results per List call.
    #[arg(long)]
    page_size: Option<i64>,
    /// Also write entries for resources some stack already manages.
    #[arg(long)]
    include_managed: bool,
    /// Where to write the import spec of what was found (printed when left out).
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    store: crate::cli::StoreArgs,
    /// A folder of provider plugins, searched after the `ferry` binary's own folder.
    #[arg(long = "plugin-dir", env = "FERRY_PLUGIN_DIR")]
    plugin_dirs: Vec<PathBuf>,
}

fn parse_query(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!("`{text}` is not `key=value`")),
    }
}

pub async fn run(args: DiscoverArgs) -> Result<(), Error> {
    let (service, stack_id) =
        open_stack(&args.stack, &args.store, &args.plugin_dirs, env_passphrase()).await?;
    let query: Map<String, Value> =
        args.query.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
    let types = args
        .types
        .iter()
        .map(|t| TypeQuery {
            type_: t.clone(),
            query: query.clone(),
            limit: args.limit,
            page_size: args.page_size,
        })
        .collect();
    let started = service
        .discoveries()
        .start_discovery(&stack_id, ferry_service::DiscoveryRequest { types })
        .await?;
    // Follow it to its end, then read it whole.
    let mut updates = std::pin::pin!(
        service.jobs().follow_job::<ferry_service::DiscoveryView>(&started.id, None).await?
    );
    while futures_util::StreamExt::next(&mut updates).await.is_some() {}
    let view = service.jobs().get::<ferry_service::DiscoveryView>(&started.id, None).await?;
    if let Some(e) = view.error {
        return Err(e.into());
    }
    let mut selected = Vec::new();
    let (mut managed, mut problems) = (0, 0);
    for event in &view.events {
        match event {
            DiscoveryEvent::Result(d) => {
                let is_managed = !matches!(d.managed, ferry_service::Managed::Unmanaged);
                let status = match &d.managed {
                    ferry_service::Managed::InThisStack { .. } => "managed here".to_string(),
                    ferry_service::Managed::InOtherStack { stack, .. } => {
                        format!("managed in {stack}")
                    }
                    ferry_service::Managed::Unmanaged => "unmanaged".to_string(),
                };
                eprintln!("{:<14} {}  {}  ({})", status, d.type_, d.id, d.name);
                managed += usize::from(is_managed);
                if !is_managed || args.include_managed {
                    selected.push(Selected {
                        type_: d.type_.clone(),
                        id: d.id.clone(),
                        name: d.name.clone(),
                    });
                }
            }
            DiscoveryEvent::NotListable { message, .. }
            | DiscoveryEvent::Failed { message, .. } => {
                problems += 1;
                eprintln!("error: {message}");
            }
            DiscoveryEvent::Computed { type_ } => {
                eprintln!("{type_}: the query holds unknown values; nothing listed")
            }
            DiscoveryEvent::Page { .. } => {}
        }
    }
    eprintln!("{} found, {managed} already managed, {} in the spec", view.found, selected.len());
    if !selected.is_empty() {
        let spec = ferry_service::spec_with(None, &selected)?;
        match &args.out {
            Some(path) => write_atomically(path, spec.as_bytes(), None)?,
            None => println!("{spec}"),
        }
    }
    if problems > 0 {
        return Err(format!("{problems} type(s) could not be listed").into());
    }
    Ok(())
}

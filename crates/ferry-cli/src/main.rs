//! `ferry`: the command line. `ferry serve` (the default) runs the web app and API.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use ferry_service::DEFAULT_MAX_STATE_BYTES;
use leptos::prelude::*;
use server::{router, AppState};

/// mimalloc rather than glibc's malloc: a big stack's upload, commit and preview allocate
/// millions of small objects across threads, and glibc's allocator spent a third of a
/// 100,000-resource commit's time in its own bookkeeping (`perf`, 2026-11-24).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc.h's `mi_option_e` (the crate names no constant for it;
/// the test below checks the number against the option's documented default).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// mimalloc 3 gives freed memory back to the system a second after it was freed, and only when
/// the thread that freed it allocates again: a preview's run, on a thread that then ends, and a
/// commit's transient copies stayed resident. With 10 ms (mimalloc 2's delay), measured on a
/// 100,000-resource stack, the commit peaked at 450 MB instead of 628 MB, the server sat at
/// ~200 MB between requests instead of ~390 MB, and the preview and commit took as long; with
/// no delay at all previews were ~10% slower. Set before any other thread starts (mimalloc's
/// options are not thread-safe to set). An operator's own `MIMALLOC_PURGE_DELAY` (milliseconds)
/// is left to mimalloc, which reads it.
const PURGE_DELAY_MS: std::ffi::c_long = 10;

/// Sets mimalloc's purge delay to [`PURGE_DELAY_MS`].
fn release_freed_memory_soon() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: a plain option write, made while this is the process's only thread.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
}

mod cli;
mod discover_cmd;
mod import_cmd;
mod preview_cmd;
mod token_cmd;

#[derive(Parser)]
#[command(
    name = "ferry",
    version,
    about = "Plan, preview, review and commit imports into Pulumi stacks"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Run the web app and the HTTP API (the default).
    Serve(ServeArgs),
    /// Preview (and, unless --preview-only, commit) an import spec into a stack.
    Import(import_cmd::ImportArgs),
    /// Preview a Pulumi YAML program against a stack; write its import file or mapping; commit
    /// on request.
    Preview(preview_cmd::PreviewArgs),
    /// List what providers find for some resource types and write the unmanaged ones as an
    /// import spec.
    Discover(discover_cmd::DiscoverArgs),
    /// API tokens for scripts and CI, made from the data folder (first setup, automation).
    Token(token_cmd::TokenArgs),
    /// Print a one-time browser sign-in link for a user.
    SignInLink(token_cmd::LinkArgs),
}

#[derive(clap::Args, Clone)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "FERRY_ADDR", default_value = "127.0.0.1:3000")]
    addr: SocketAddr,
    #[command(flatten)]
    store: crate::cli::StoreArgs,
    /// Largest state file accepted, in bytes.
    #[arg(long, env = "FERRY_MAX_STATE_BYTES", default_value_t = DEFAULT_MAX_STATE_BYTES)]
    max_state_bytes: usize,
    /// Do not create the demo stack on first start.
    #[arg(long, env = "FERRY_NO_DEMO")]
    no_demo: bool,
    /// A folder of provider plugins (`pulumi-resource-<package>`), searched before `PATH` and
    /// Pulumi's plugin cache. The folder of the `ferry` binary is always searched first.
    #[arg(long = "plugin-dir", env = "FERRY_PLUGIN_DIR")]
    plugin_dirs: Vec<PathBuf>,
    /// Pass the server's variable `<VAR>` to one organisation's plugins of `<package>`, as
    /// `<org>:<package>=<VAR>` (`*:<package>=<VAR>`: every organisation's; e.g.
    /// `acme:aws=AWS_PROFILE`, `*:postgresql=PGHOST`). Repeatable. Plugins otherwise start with
    /// a minimal environment (`PATH`, the locale, the temporary folder, and an empty `HOME` of
    /// their own): a request never reaches the server's own credentials, nor those meant for
    /// another organisation.
    #[arg(long = "plugin-env", env = "FERRY_PLUGIN_ENV", value_delimiter = ',')]
    plugin_env: Vec<String>,
    /// A Pulumi DIY backend an organisation may connect stacks of, as `<org>=<url>` (`*=<url>`:
    /// every organisation): a folder (`file:///srv/state`, and the folders under it) or a
    /// bucket with its options (`s3://state?endpoint=…&region=…`). Repeatable; none by
    /// default, so no request makes the server open a folder or an endpoint an administrator
    /// did not name, and one organisation's backend is not another's.
    #[arg(long = "allow-backend", env = "FERRY_ALLOW_BACKENDS", value_delimiter = ',', value_parser = parse_allowed_backend)]
    allowed_backends: Vec<ferry_service::AllowedBackend>,
    /// The address users reach Ferry at (e.g. `https://ferry.example.com`): sign-in links,
    /// OpenID Connect redirects and webhooks' plan links use it, and cookies are `Secure` when
    /// it is `https`.
    #[arg(long, env = "FERRY_PUBLIC_URL")]
    public_url: Option<String>,
    /// Let organisations' webhooks reach this machine or its private network (loopback,
    /// private and link-local addresses). Off by default: a webhook's URL is an organisation
    /// administrator's, and the server would call it.
    #[arg(long, env = "FERRY_ALLOW_PRIVATE_WEBHOOKS")]
    allow_private_webhooks: bool,
    /// An OpenID Provider to sign in with (its issuer URL); needs the client ID and secret, and
    /// `--public-url` (the provider sends users back to `<public URL>/auth/oidc/callback`).
    #[arg(long, env = "FERRY_OIDC_ISSUER", requires_all = ["oidc_client_id", "oidc_client_secret"])]
    oidc_issuer: Option<String>,
    #[arg(long, env = "FERRY_OIDC_CLIENT_ID")]
    oidc_client_id: Option<String>,
    #[arg(long, env = "FERRY_OIDC_CLIENT_SECRET", hide_env_values = true)]
    oidc_client_secret: Option<String>,
    /// How long a preview job's lease lasts: when an instance dies, its running previews show
    /// as interrupted this long after (instances renew their leases every third of it).
    #[arg(long, env = "FERRY_JOB_LEASE_SECONDS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=3600))]
    job_lease_seconds: u64,
    /// A proxy in front of Ferry (an address or a CIDR, e.g. `10.0.0.0/8`): from these peers
    /// only, the client's address is taken from `Forwarded` or `X-Forwarded-For` (the rightmost
    /// hop that is not itself a trusted proxy) and its scheme from `X-Forwarded-Proto`, for the
    /// sign-in limits, the audit log and secure cookies. Repeatable; none by default, and such
    /// headers from anyone else are ignored.
    #[arg(long = "trusted-proxy", env = "FERRY_TRUSTED_PROXIES", value_delimiter = ',')]
    trusted_proxies: Vec<String>,
    /// The one header the trusted proxies write the client's address into: `x-forwarded-for`
    /// (with `X-Forwarded-Proto`) or `forwarded`. The other is never read (a client could
    /// write it, and a proxy would pass it on).
    #[arg(
        long = "trusted-proxy-header",
        env = "FERRY_TRUSTED_PROXY_HEADER",
        default_value = "x-forwarded-for"
    )]
    trusted_proxy_header: server::client_address::ForwardingHeader,
    /// How many days finished previews and discoveries (and their events), and ended sessions,
    /// are kept before the job upkeep removes them.
    #[arg(long, env = "FERRY_RETAIN_JOBS_DAYS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3650))]
    retain_jobs_days: u64,
    /// The ID token claim listing the user's groups; a group `<org>:<role>` grants that role.
    #[arg(long, env = "FERRY_OIDC_GROUPS_CLAIM")]
    oidc_groups_claim: Option<String>,
    /// Let groups `*:<role>` from the OpenID Provider grant that role in every organisation
    /// (server-wide administrators among them). Off by default: only what a server
    /// administrator grants reaches every organisation.
    #[arg(long, env = "FERRY_OIDC_ALLOW_SERVER_ROLES")]
    oidc_allow_server_roles: bool,
    /// How many steps below the server's own priority (Unix nice, 0 to 19) engine work runs:
    /// the threads that drive previews, identifications and commits, and the plugin processes
    /// they start. Under load the kernel then serves people's pages first; on an idle machine
    /// the engine still gets every core. 0 runs it at the server's priority.
    #[arg(long, env = "FERRY_ENGINE_NICENESS", default_value_t = 10, value_parser = clap::value_parser!(u8).range(0..=19))]
    engine_niceness: u8,
    /// How many previews, discoveries and identifications this instance runs at once, as jobs
    /// or asked for directly; the rest wait their turn (a job shows queued), in the order
    /// asked. Each holds its providers' answers and its results in memory until they are
    /// stored. By default the cores this process may use.
    #[arg(long, env = "FERRY_CONCURRENT_RUNS", value_parser = clap::value_parser!(u16).range(1..=1024))]
    concurrent_runs: Option<u16>,
}

/// Stacks of the runtime's threads, its blocking threads too (deeply nested properties
/// recurse): rendering a page as big as a plan's takes a debug build past the 2 MiB a thread
/// gets by default (a release build needs a fraction of it). Engine runs go to threads of
/// their own, with stacks as big (`ferry-service`'s `previews/engine_thread.rs`).
const THREAD_STACK_BYTES: usize = 8 << 20;

fn main() {
    release_freed_memory_soon();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(THREAD_STACK_BYTES)
        .build()
        .expect("the async runtime starts");
    runtime.block_on(run());
}

async fn run() {
    let cli = Cli::parse();
    // Logs go to stderr, so `ferry import --json` prints clean JSON; commands are quieter.
    let default_filter = if matches!(
        cli.command,
        Some(Command::Import(_) | Command::Preview(_) | Command::Discover(_))
    ) {
        "warn"
    } else {
        "info,sqlx=warn,tower_http=info"
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| default_filter.into()),
        )
        .init();
    let result = match cli.command {
        Some(Command::Serve(args)) => serve(args).await,
        Some(Command::Import(args)) => import_cmd::run(args).await,
        Some(Command::Preview(args)) => preview_cmd::run(args).await,
        Some(Command::Discover(args)) => discover_cmd::run(args).await,
        Some(Command::Token(args)) => token_cmd::run(args).await,
        Some(Command::SignInLink(args)) => token_cmd::sign_in_link(args).await,
        None => serve(cli.serve).await,
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn parse_allowed_backend(entry: &str) -> Result<ferry_service::AllowedBackend, String> {
    ferry_service::AllowedBackend::parse(entry).map_err(|e| e.to_string())
}

async fn serve(args: ServeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let ferry = Arc::new(
        cli::open_service(
            &args.store,
            &args.plugin_dirs,
            args.max_state_bytes,
            cli::PluginEnvPolicy::Granted(cli::PluginEnvGrants::parse(&args.plugin_env)?),
            cli::Background::below_current(args.engine_niceness),
        )
        .await?
        .with_allowed_backends(args.allowed_backends.clone())
        .with_webhooks(ferry_service::webhooks::WebhookSettings {
            allow_private: args.allow_private_webhooks,
            public_url: Some(
                args.public_url.clone().unwrap_or_else(|| format!("http://{}", args.addr)),
            ),
            ..Default::default()
        })
        .with_job_lease(std::time::Duration::from_secs(args.job_lease_seconds))
        .with_job_retention(std::time::Duration::from_secs(args.retain_jobs_days * 86_400))
        .with_concurrent_runs(
            args.concurrent_runs.map_or_else(ferry_service::default_concurrent_runs, usize::from),
        ),
    );
    // An instance whose payload key is not the one the store's other instances seal previews
    // with would fail to open what they made: it does not start.
    ferry
        .previews()
        .check_payload_key()
        .await
        .map_err(|e| format!("cannot serve from the store {}: {e}", args.store.describe()))?;
    tracing::info!(store = %args.store.describe(), "store open");
    let interrupted = ferry.recover().await?;
    if !interrupted.is_empty() {
        tracing::warn!(
            jobs = interrupted.len(),
            "previews a stopped instance left running are marked interrupted"
        );
    }
    // Plans from before plans had a state get theirs, once (lists would otherwise compute each
    // as they reach it).
    // Webhook deliveries queued before a stop, or by another instance, go out from here too.
    tokio::spawn(ferry.webhooks().clone().run());
    let computed = ferry.workflow().compute_missing_statuses().await?;
    if computed > 0 {
        tracing::info!(plans = computed, "computed the state of plans made before plans had one");
    }
    if !args.no_demo {
        if let Some(demo) = ferry.stacks().ensure_demo().await? {
            tracing::info!(stack = %demo.name, resources = demo.resources, "created the demo stack");
        }
    }

    let public_url = args.public_url.clone().unwrap_or_else(|| format!("http://{}", args.addr));
    let oidc = match (&args.oidc_issuer, &args.oidc_client_id, &args.oidc_client_secret) {
        (Some(issuer), Some(client_id), Some(client_secret)) => {
            let settings = server::oidc::OidcSettings {
                issuer: issuer.clone(),
                client_id: client_id.clone(),
                client_secret: client_secret.clone(),
                groups_claim: args.oidc_groups_claim.clone(),
                allow_server_roles: args.oidc_allow_server_roles,
            };
            let oidc = server::oidc::Oidc::discover(&settings, &public_url).await?;
            tracing::info!(issuer = %issuer, "OpenID Connect sign-in enabled");
            Some(Arc::new(oidc))
        }
        _ => None,
    };
    // Sign-in is never off. On a loopback address a fresh store gets an administrator and a
    // one-time sign-in link; anywhere else someone must be able to sign in already (a user, or
    // an OpenID Provider).
    if !ferry.accounts().has_users().await? && oidc.is_none() {
        if !args.addr.ip().is_loopback() {
            return Err(format!(
                "no one can sign in to Ferry on {}: create an administrator first (`ferry token create --data-dir {} --user admin --role admin`, then `ferry sign-in-link --user admin`)",
                args.addr,
                args.store.data_dir.display()
            )
            .into());
        }
        if let Some(link) = ferry.accounts().ensure_first_admin().await? {
            let base = args.public_url.clone().unwrap_or_else(|| format!("http://{}", args.addr));
            // Printed to the terminal once, never logged: it signs in as the administrator.
            eprintln!(
                "\nFerry made an administrator, `admin`. Sign in within 15 minutes (once) at:\n\n    {}/auth/link/{}\n",
                base.trim_end_matches('/'),
                link.0
            );
        }
    }

    let mut conf = get_configuration(None)?;
    conf.leptos_options.site_addr = args.addr;
    let proxies = server::client_address::TrustedProxies::parse(&args.trusted_proxies)?
        .with_header(args.trusted_proxy_header);
    let state = AppState::new(
        conf.leptos_options,
        ferry,
        server::AuthConfig { public_url: args.public_url.clone(), oidc },
    )
    .with_trusted_proxies(proxies);
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.addr))?;
    tracing::info!("Ferry listening on http://{}", listener.local_addr()?);
    axum::serve(listener, router(state).into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown())
        .await?;
    Ok(())
}

async fn shutdown() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number is mimalloc's purge delay: its documented default (1000 ms in mimalloc
    /// 3) until this process sets it. A mimalloc whose options are numbered otherwise fails here,
    /// not silently in production.
    #[test]
    fn the_purge_delay_option_is_the_one_set() {
        // SAFETY: a read of an option; no test here writes it.
        assert_eq!(unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) }, 1000);
    }
}

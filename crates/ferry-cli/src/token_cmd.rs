//! `ferry token create` and `ferry sign-in-link`: first setup and automation, by whoever holds
//! the data directory (so no sign-in is needed): an API token, or a one-time browser sign-in
//! link, for a user made if missing.

use ferry_service::access::Role;

use crate::cli::{self, Error};

#[derive(clap::Args)]
pub struct TokenArgs {
    #[command(subcommand)]
    command: TokenCommand,
}

#[derive(clap::Subcommand)]
enum TokenCommand {
    /// Print a new API token (send it as `Authorization: Bearer <token>`).
    Create(CreateArgs),
}

#[derive(clap::Args)]
pub struct CreateArgs {
    #[command(flatten)]
    store: crate::cli::StoreArgs,
    /// The user the token acts as; made if missing.
    #[arg(long)]
    user: String,
    /// The token's role (viewer, planner, approver, committer, admin), also granted to the
    /// user in `--org`.
    #[arg(long)]
    role: String,
    /// The organisation (the `org` of `org/project/stack`); `*` is every organisation.
    #[arg(long, default_value = "*")]
    org: String,
    /// Days until the token expires.
    #[arg(long, default_value_t = 30)]
    days: i64,
    /// What the token is for, as its list shows it.
    #[arg(long, default_value = "command line")]
    name: String,
}

pub async fn run(args: TokenArgs) -> Result<(), Error> {
    let TokenCommand::Create(args) = args.command;
    let role: Role = args.role.parse()?;
    if !(1..=366).contains(&args.days) {
        return Err(format!("--days must be 1 to 366, not {}", args.days).into());
    }
    let service = std::sync::Arc::new(
        cli::open_service(
            &args.store,
            &[],
            ferry_service::DEFAULT_MAX_STATE_BYTES,
            cli::PluginEnvPolicy::Inherited,
            cli::Background::default(),
        )
        .await?,
    );
    let user = service.accounts().grant(&args.user, &args.org, role).await?;
    let created = service
        .accounts()
        .issue_api_token(&user.id, &args.name, &args.org, role, args.days * 86_400)
        .await?;
    audit_command(
        &service,
        (args.org != "*").then_some(args.org.as_str()),
        "token.create",
        &format!("token {} of user {} ({} in {})", args.name, user.name, role.as_str(), args.org),
        &user.id,
    )
    .await?;
    // The token goes to standard output alone, so scripts can capture it.
    println!("{}", created.token.as_deref().unwrap_or_default());
    eprintln!(
        "token for `{}` as {} in `{}`, expires {}",
        user.name,
        role.as_str(),
        args.org,
        created.expires_at
    );
    Ok(())
}

#[derive(clap::Args)]
pub struct LinkArgs {
    #[command(flatten)]
    store: crate::cli::StoreArgs,
    /// The user to sign in as; made if missing (with no roles unless given some).
    #[arg(long)]
    user: String,
    /// Where users reach Ferry, for the link.
    #[arg(long, env = "FERRY_PUBLIC_URL", default_value = "http://127.0.0.1:3000")]
    public_url: String,
}

/// Prints a one-time sign-in link (valid 15 minutes), e.g. for a user who lost their password.
pub async fn sign_in_link(args: LinkArgs) -> Result<(), Error> {
    let service = std::sync::Arc::new(
        cli::open_service(
            &args.store,
            &[],
            ferry_service::DEFAULT_MAX_STATE_BYTES,
            cli::PluginEnvPolicy::Inherited,
            cli::Background::default(),
        )
        .await?,
    );
    let user = service.accounts().ensure_user(&args.user).await?;
    let secret = service.accounts().new_sign_in_link(&user.id).await?;
    audit_command(
        &service,
        None,
        "sign-in-link.create",
        &format!("sign-in link of user {}", user.name),
        &user.id,
    )
    .await?;
    println!("{}/auth/link/{}", args.public_url.trim_end_matches('/'), secret.0);
    Ok(())
}

/// Records what a command run on the server's machine did to an account: in the audit log like
/// any change, by the machine's user (the command line has no Ferry user).
async fn audit_command(
    service: &std::sync::Arc<ferry_service::Ferry>,
    org: Option<&str>,
    action: &str,
    object: &str,
    subject: &str,
) -> Result<(), Error> {
    let who = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "unknown".into());
    let actor = format!("command line ({who})");
    let record = ferry_service::accounts::AuditEvent {
        actor: &actor,
        org,
        action,
        object,
        address: "command line",
        outcome: "ok",
        plan_id: None,
        subject: Some(subject),
    };
    service.accounts().audit(record).await?;
    Ok(())
}

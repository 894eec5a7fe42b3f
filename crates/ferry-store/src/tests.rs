//! Store behaviour, the same in both databases: versions append, never overwrite; failures
//! leave nothing behind; the immutable tables refuse changes. Every test runs against an
//! in-memory SQLite store and a PostgreSQL one (the machine's server; a missing server fails).

use super::open::{hash_legacy_share_tokens, POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};
use super::*;
use sqlx::any::AnyPoolOptions;
use std::path::Path;

/// One store of each kind, each empty.
pub(crate) async fn stores() -> Vec<Store> {
    let postgres = testing::scratch_postgres(&testing::postgres_url()).await.unwrap_or_else(|e| {
        panic!("the store's tests need PostgreSQL at {}: {e}", redact_url(&testing::postgres_url()))
    });
    vec![Store::open_in_memory().await.unwrap(), postgres]
}

pub(crate) fn new(json: &str) -> NewVersion<'_> {
    NewVersion {
        origin: "upload",
        source_format: "stack export v3",
        resource_count: 2,
        export: PackedJson::pack(json),
        managed: Default::default(),
    }
}

/// A plan `t` by ann on the stack `stack_id`, its first revision an empty spec.
pub(crate) async fn new_plan(store: &Store, stack_id: &str) -> plans::Plan {
    let new = plans::NewPlan {
        stack_id,
        title: "t",
        author: "ann",
        spec: Some("{}"),
        options: "{}",
        ..Default::default()
    };
    store.plans().add_plan(new).await.unwrap()
}

/// A version an older Ferry stored, its export as text, reads as it was written, beside the
/// packed ones written since.
#[tokio::test]
async fn versions_stored_as_text_before_exports_were_packed_still_read() {
    for store in stores().await {
        let name = StackName::parse("acme/web/old").unwrap();
        let v1 = store.stacks().add_version(&name, new("{\"v\":1}")).await.unwrap();
        sqlx::query("INSERT INTO stack_versions (stack_id, version, origin, source_format, resource_count, export_json) VALUES ($1, 2, 'upload', 'stack export v3', 0, $2)")
            .bind(&v1.id)
            .bind("{\"v\":\"text\"}")
            .execute(&store.pool)
            .await
            .unwrap();
        let v3 = store.stacks().add_version(&name, new("{\"v\":3}")).await.unwrap();
        let read = |v| {
            let store = store.clone();
            let id = v1.id.clone();
            async move { store.stacks().version(&id, Some(v)).await.unwrap().export_json }
        };
        assert_eq!(
            (read(1).await, read(2).await, read(3).await),
            ("{\"v\":1}".into(), "{\"v\":\"text\"}".into(), "{\"v\":3}".to_string())
        );
        assert_eq!(v3.version, 3);
        // A row holds its export one way, never both or neither.
        let both = sqlx::query("INSERT INTO stack_versions (stack_id, version, origin, source_format, resource_count, export_json, export_zstd) VALUES ($1, 4, 'upload', 'x', 0, '{}', $2)")
            .bind(&v1.id)
            .bind(&b"x"[..])
            .execute(&store.pool)
            .await;
        let neither = sqlx::query("INSERT INTO stack_versions (stack_id, version, origin, source_format, resource_count) VALUES ($1, 5, 'upload', 'x', 0)")
            .bind(&v1.id)
            .execute(&store.pool)
            .await;
        assert!(both.is_err() && neither.is_err(), "{both:?} {neither:?}");
    }
}

/// A preview an older Ferry stored, its plan as text, reads as it was written, beside the
/// packed ones written since; a packed row's text column is empty.
#[tokio::test]
async fn previews_stored_as_text_before_plans_were_packed_still_read() {
    for store in stores().await {
        let stack = store
            .stacks()
            .add_version(&StackName::parse("acme/web/previews").unwrap(), new("{}"))
            .await
            .unwrap();
        let (packed, _) = store
            .stacks()
            .add_preview(
                &stack.id,
                stack.version,
                "spec",
                &PackedJson::pack("{\"plan\":1}"),
                "sealed",
            )
            .await
            .unwrap();
        sqlx::query("INSERT INTO previews (id, stack_id, base_version, spec, preview_json, payload) VALUES ('old', $1, $2, 'spec', '{\"plan\":0}', 'sealed')")
            .bind(&stack.id)
            .bind(stack.version)
            .execute(&store.pool)
            .await
            .unwrap();
        assert_eq!(store.stacks().preview(&packed).await.unwrap().preview_json, "{\"plan\":1}");
        assert_eq!(store.stacks().preview("old").await.unwrap().preview_json, "{\"plan\":0}");
        // A row as a caller might write it, its plan given as `text` and as `packed` bytes.
        let insert = |id: &'static str, text: &'static str, packed: &'static [u8]| {
            sqlx::query("INSERT INTO previews (id, stack_id, base_version, spec, preview_json, preview_zstd, payload) VALUES ($1, $2, $3, 's', $4, $5, 'p')")
                .bind(id)
                .bind(&stack.id)
                .bind(stack.version)
                .bind(text)
                .bind(packed)
                .execute(&store.pool)
        };
        let both = insert("both", "{}", b"x").await;
        assert!(both.is_err(), "a row holds its plan one way: {both:?}");
        let damaged = insert("damaged", "", b"not zstd").await;
        assert!(damaged.is_ok(), "{damaged:?}");
        let err = store.stacks().preview("damaged").await.unwrap_err().to_string();
        assert!(
            err.contains("preview `damaged` is damaged") && err.contains("does not decompress"),
            "{err}"
        );
    }
}

#[tokio::test]
async fn versions_append_and_the_latest_wins() {
    for store in stores().await {
        let name = StackName::parse("acme/web/prod").unwrap();
        let v1 = store.stacks().add_version(&name, new("{\"v\":1}")).await.unwrap();
        let v2 = store.stacks().add_version(&name, new("{\"v\":2}")).await.unwrap();
        assert_eq!((v1.version, v2.version), (1, 2));
        assert_eq!(v1.id, v2.id);
        assert_eq!(store.stacks().version(&v1.id, None).await.unwrap().export_json, "{\"v\":2}");
        assert_eq!(store.stacks().version(&v1.id, Some(1)).await.unwrap().export_json, "{\"v\":1}");
        assert_eq!(store.stacks().versions(&v1.id).await.unwrap().len(), 2);
        let list = store.stacks().list_stacks().await.unwrap();
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].version, 2);
    }
}

#[tokio::test]
async fn versions_cannot_be_changed_or_removed() {
    for store in stores().await {
        let s = store
            .stacks()
            .add_version(&StackName::parse("a/b/c").unwrap(), new("{}"))
            .await
            .unwrap();
        let update =
            sqlx::query("UPDATE stack_versions SET export_json = 'x'").execute(&store.pool).await;
        assert!(update.unwrap_err().to_string().contains("immutable"));
        let delete = sqlx::query("DELETE FROM stack_versions").execute(&store.pool).await;
        assert!(delete.unwrap_err().to_string().contains("immutable"));
        assert_eq!(store.stacks().version(&s.id, None).await.unwrap().export_json, "{}");
    }
}

#[tokio::test]
async fn a_failed_write_leaves_no_stack_behind() {
    for store in stores().await {
        let dialect = store.dialect();
        // Make the version insert fail after the stack row was written in the same transaction.
        let fail = match dialect {
            Dialect::Sqlite => "CREATE TRIGGER fail BEFORE INSERT ON stack_versions BEGIN SELECT RAISE(ABORT, 'boom'); END",
            Dialect::Postgres => "CREATE TRIGGER fail BEFORE INSERT ON stack_versions FOR EACH ROW EXECUTE FUNCTION ferry_refuse('boom')",
        };
        sqlx::query(fail).execute(&store.pool).await.unwrap();
        let err = store
            .stacks()
            .add_version(&StackName::parse("a/b/c").unwrap(), new("{}"))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("boom"));
        assert!(store.stacks().list_stacks().await.unwrap().is_empty());
        let stacks: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM stacks").fetch_one(&store.pool).await.unwrap();
        assert_eq!(stacks, 0);
    }
}

#[tokio::test]
async fn the_store_file_survives_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ferry.db");
    let id = {
        let store = Store::open(&path).await.unwrap();
        store.stacks().add_version(&StackName::parse("a/b/c").unwrap(), new("{}")).await.unwrap().id
    };
    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.stacks().stack(&id).await.unwrap().name, "a/b/c");
    assert!(matches!(store.stacks().stack("nope").await, Err(StoreError::StackNotFound(_))));
}

/// Writers of one SQLite file at once (requests, and the job upkeep's periodic updates) take
/// turns: a transaction that reads before it writes waits for the write lock instead of failing
/// with "database is locked" when another connection committed in between.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_of_a_sqlite_file_take_turns() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("ferry.db")).await.unwrap();
    let stack = store
        .stacks()
        .add_version(&StackName::parse("a/b/upkeep").unwrap(), new("{}"))
        .await
        .unwrap();
    let upkeep = {
        let store = store.clone();
        let url = "file:///srv/state".to_string();
        tokio::spawn(async move {
            for i in 0..200 {
                store
                    .stacks()
                    .add_backend_lock(
                        &format!("l{i}"),
                        &stack.id,
                        &url,
                        "i",
                        &store.clock().in_seconds(1),
                    )
                    .await
                    .unwrap();
                store
                    .stacks()
                    .renew_backend_locks("i", &store.clock().in_seconds(1))
                    .await
                    .unwrap();
            }
        })
    };
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let store = store.clone();
            tokio::spawn(async move {
                for v in 0..10 {
                    let name = StackName::parse(&format!("a/b/s{w}")).unwrap();
                    store
                        .stacks()
                        .add_version(&name, new("{}"))
                        .await
                        .unwrap_or_else(|e| panic!("writer {w}, version {v}: {e}"));
                }
            })
        })
        .collect();
    for writer in writers {
        writer.await.unwrap();
    }
    upkeep.await.unwrap();
    assert_eq!(store.stacks().list_stacks().await.unwrap().len(), 9);
}

#[test]
fn stack_names() {
    assert!(StackName::parse("org/proj/dev").is_ok());
    for bad in ["dev", "a/b", "a/b/c/d", "a//c", "a/b c/d", "a/b/ü"] {
        assert!(StackName::parse(bad).is_err(), "{bad}");
    }
}

#[tokio::test]
async fn plan_revisions_are_immutable_and_shares_revocable() {
    for store in stores().await {
        let stack = store
            .stacks()
            .add_version(&StackName::parse("a/b/c").unwrap(), new("{}"))
            .await
            .unwrap()
            .id;
        let plan = store
            .plans()
            .add_plan(plans::NewPlan {
                stack_id: &stack,
                title: "t",
                author: "ann",
                spec: Some("{}"),
                options: "{}",
                sealed_prior: Some("sealed"),
                ..Default::default()
            })
            .await
            .unwrap();
        // What a migration recorded stays with the plan, as sealed.
        assert_eq!(store.plans().plan_prior(&plan.id).await.unwrap().as_deref(), Some("sealed"));
        assert_eq!((plan.revision, plan.author.as_deref()), (1, Some("ann")));
        let second = store
            .plans()
            .add_plan_revision(&plan.id, "bob", None, Some("resources: {}"), "{}")
            .await
            .unwrap();
        assert_eq!(
            (second.revision, second.program.as_deref(), second.author.as_deref()),
            (2, Some("resources: {}"), Some("bob"))
        );
        store
            .plans()
            .add_plan_revision(&plan.id, "ann", None, Some("resources: {}"), "{}")
            .await
            .unwrap();
        assert_eq!(
            store.plans().plan_authors(&plan.id).await.unwrap(),
            ["ann", "bob"],
            "whoever wrote a revision is an author"
        );
        for sql in ["UPDATE plan_revisions SET spec = 'x'", "DELETE FROM plan_revisions"] {
            let err = sqlx::query(sql).execute(&store.pool).await.unwrap_err();
            assert!(err.to_string().contains("immutable"), "{sql}: {err}");
        }
        assert_eq!(
            store.plans().plan_revision(&plan.id, Some(1)).await.unwrap().spec.as_deref(),
            Some("{}")
        );
        assert!(matches!(
            store
                .plans()
                .add_plan(plans::NewPlan {
                    stack_id: "nope",
                    title: "t",
                    author: "ann",
                    options: "{}",
                    ..Default::default()
                })
                .await,
            Err(StoreError::StackNotFound(_))
        ));
        let token = random_id();
        let share = store.plans().add_plan_share(&plan.id, &hash_secret(&token), 30).await.unwrap();
        assert!(share.active && share.expires_at.is_some());
        assert!(
            !store
                .plans()
                .add_plan_share(&plan.id, &hash_secret(&random_id()), -1)
                .await
                .unwrap()
                .active,
            "an expired link"
        );
        assert_eq!(
            store.plans().plan_share_by_token(&hash_secret(&token)).await.unwrap(),
            share,
            "found by its token's hash"
        );
        assert!(
            matches!(
                store.plans().plan_share_by_token(&token).await,
                Err(StoreError::ShareNotFound)
            ),
            "never by the token itself"
        );
        let kept: Vec<String> =
            sqlx::query_scalar("SELECT id || '|' || token_hash FROM plan_shares")
                .fetch_all(&store.pool)
                .await
                .unwrap();
        assert!(
            kept.iter().all(|row| !row.contains(&token)),
            "the store does not keep the token: {kept:?}"
        );
        let revoked = store.plans().revoke_plan_share(&plan.id, &share.id).await.unwrap();
        assert!(revoked.revoked_at.is_some());
        assert!(matches!(
            store.plans().revoke_plan_share("other", &share.id).await,
            Err(StoreError::ShareNotFound)
        ));
        // A link made before tokens were hashed (its token was its key) keeps working, and its
        // token is kept no longer, once the store has opened.
        let legacy = random_id();
        sqlx::query("INSERT INTO plan_shares (id, plan_id) VALUES ($1, $2)")
            .bind(&legacy)
            .bind(&plan.id)
            .execute(&store.pool)
            .await
            .unwrap();
        hash_legacy_share_tokens(&store.pool).await.unwrap();
        let upgraded = store.plans().plan_share_by_token(&hash_secret(&legacy)).await.unwrap();
        assert!(upgraded.active && upgraded.id != legacy, "{upgraded:?}");
        assert!(
            matches!(store.plans().plan_share(&legacy).await, Err(StoreError::ShareNotFound)),
            "the old token is no ID"
        );
    }
}

#[tokio::test]
async fn the_audit_log_is_append_only_and_secrets_expire() {
    for store in stores().await {
        let member = store
            .accounts()
            .add_user(accounts::NewUser { name: "member", ..Default::default() })
            .await
            .unwrap();
        let outsider = store
            .accounts()
            .add_user(accounts::NewUser { name: "outsider", ..Default::default() })
            .await
            .unwrap();
        let server_admin = store
            .accounts()
            .add_user(accounts::NewUser { name: "root", ..Default::default() })
            .await
            .unwrap();
        store.accounts().grant_role(&member.id, "o", "viewer").await.unwrap();
        store.accounts().grant_role(&outsider.id, "other", "viewer").await.unwrap();
        store.accounts().grant_role(&server_admin.id, "*", "admin").await.unwrap();
        let record = accounts::NewAuditRecord {
            actor: "a",
            org: Some("o"),
            action: "x",
            object: "y",
            address: "local",
            outcome: "ok",
            plan_id: None,
            subject: None,
        };
        store.accounts().append_audit(record.clone()).await.unwrap();
        for (who, actor) in [(&member, "member"), (&outsider, "outsider"), (&server_admin, "root")]
        {
            store
                .accounts()
                .append_audit(accounts::NewAuditRecord {
                    org: None,
                    actor,
                    subject: Some(&who.id),
                    ..record.clone()
                })
                .await
                .unwrap();
        }
        store
            .accounts()
            .append_audit(accounts::NewAuditRecord { org: None, actor: "nobody", ..record.clone() })
            .await
            .unwrap();
        store
            .accounts()
            .append_audit(accounts::NewAuditRecord { org: Some("other"), ..record.clone() })
            .await
            .unwrap();
        for sql in ["UPDATE audit_log SET actor = 'b'", "DELETE FROM audit_log"] {
            let err = sqlx::query(sql).execute(&store.pool).await.unwrap_err();
            assert!(err.to_string().contains("append-only"), "{sql}: {err}");
        }
        // An organisation's log holds its records and the server-wide ones about its members,
        // never another's, an outsider's, a server administrator's or an unknown name's.
        let seen: Vec<(Option<String>, String)> = store
            .accounts()
            .audit(Some("o"), 0, 10)
            .await
            .unwrap()
            .into_iter()
            .map(|r| (r.org, r.actor))
            .collect();
        assert_eq!(seen, [(Some("o".to_string()), "a".to_string()), (None, "member".to_string())]);
        assert_eq!(store.accounts().audit(None, 1, 10).await.unwrap().len(), 5, "after the first");

        // A newcomer's earlier sign-ins are not the organisation's to read: only what follows
        // their joining (their roles changing keeps the time they joined).
        let newcomer = store
            .accounts()
            .add_user(accounts::NewUser { name: "newcomer", ..Default::default() })
            .await
            .unwrap();
        let about_newcomer = accounts::NewAuditRecord {
            org: None,
            actor: "newcomer",
            subject: Some(&newcomer.id),
            action: "before",
            ..record.clone()
        };
        store.accounts().append_audit(about_newcomer.clone()).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        store.accounts().grant_role(&newcomer.id, "o", "viewer").await.unwrap();
        store.accounts().set_roles(&newcomer.id, "o", &["viewer", "planner"]).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        store
            .accounts()
            .append_audit(accounts::NewAuditRecord { action: "after", ..about_newcomer })
            .await
            .unwrap();
        let about: Vec<String> = store
            .accounts()
            .audit(Some("o"), 0, 100)
            .await
            .unwrap()
            .into_iter()
            .filter(|r| r.actor == "newcomer")
            .map(|r| r.action)
            .collect();
        assert_eq!(about, ["after"], "from the moment they joined");

        let user = store
            .accounts()
            .add_user(accounts::NewUser { name: "u", ..Default::default() })
            .await
            .unwrap();
        assert!(matches!(
            store.accounts().add_user(accounts::NewUser { name: "u", ..Default::default() }).await,
            Err(StoreError::UserExists(_))
        ));
        store
            .accounts()
            .add_session("live", &user.id, 60, accounts::SessionMethod::Link)
            .await
            .unwrap();
        store
            .accounts()
            .add_session("dead", &user.id, -1, accounts::SessionMethod::Password)
            .await
            .unwrap();
        assert_eq!(
            store.accounts().session_user("live").await.unwrap().map(|(u, m)| (u.name, m)),
            Some(("u".into(), Some(accounts::SessionMethod::Link)))
        );
        assert_eq!(store.accounts().session_user("dead").await.unwrap(), None);
        store.accounts().add_sign_in_link("link", &user.id, 60).await.unwrap();
        assert_eq!(store.accounts().use_sign_in_link("link").await.unwrap(), Some(user.id.clone()));
        assert_eq!(store.accounts().use_sign_in_link("link").await.unwrap(), None, "once");
    }
}

#[tokio::test]
async fn of_two_commits_of_one_preview_at_once_exactly_one_wins() {
    for store in stores().await {
        let stack = store
            .stacks()
            .add_version(&StackName::parse("a/b/c").unwrap(), new("{}"))
            .await
            .unwrap();
        let (id, _) = store
            .stacks()
            .add_preview(&stack.id, stack.version, "{}", &PackedJson::pack("{}"), "")
            .await
            .unwrap();
        let preview = store.stacks().preview(&id).await.unwrap();
        let (a, b) = tokio::join!(
            store.stacks().commit_preview(&preview, new("{\"a\":1}")),
            store.stacks().commit_preview(&preview, new("{\"b\":1}"))
        );
        let (won, lost) = match (a, b) {
            (Ok(won), Err(lost)) | (Err(lost), Ok(won)) => (won, lost),
            other => {
                panic!("{:?}: expected one commit and one refusal, got {other:?}", store.dialect())
            }
        };
        assert_eq!(won.version, 2);
        assert!(
            matches!(
                lost,
                StoreError::AlreadyCommitted { version: 2 } | StoreError::StalePreview { .. }
            ),
            "{lost}"
        );
        assert_eq!(
            store.stacks().versions(&stack.id).await.unwrap().len(),
            2,
            "one new version, not two"
        );
    }
}

#[test]
fn database_urls_are_shown_without_their_password() {
    assert_eq!(
        redact_url("postgres://ferry:s3cret@db:5432/ferry"),
        "postgres://ferry:***@db:5432/ferry"
    );
    assert_eq!(redact_url("postgres://db/ferry"), "postgres://db/ferry");
    assert_eq!(redact_url("sqlite:///var/lib/ferry.db"), "sqlite:///var/lib/ferry.db");
}

#[tokio::test]
async fn an_unknown_database_is_refused_by_name() {
    let err = Store::connect("mysql://root:pw@localhost/x").await.err().unwrap();
    assert!(err.to_string().contains("mysql://root:***@localhost/x"), "{err}");
}

#[tokio::test]
async fn both_databases_have_the_same_migrations() {
    let names = |m: &sqlx::migrate::Migrator| {
        m.iter().map(|m| (m.version, m.description.to_string())).collect::<Vec<_>>()
    };
    assert_eq!(names(&SQLITE_MIGRATIONS), names(&POSTGRES_MIGRATIONS));
}

/// A store an older Ferry made (every migration before exports were packed), holding a version
/// as text, is brought up to date with that version readable as it was and still immutable.
#[tokio::test]
async fn a_store_from_before_packed_exports_migrates_with_its_versions() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = format!("sqlite://{}?mode=rwc", dir.path().join("old.db").display());
    let postgres = testing::scratch_postgres_url(&testing::postgres_url()).await.unwrap();
    for (url, dialect) in [(sqlite, "sqlite"), (postgres, "postgres")] {
        sqlx::any::install_default_drivers();
        // The migrations as an older Ferry shipped them: those before 0012.
        let older = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations").join(dialect),
        )
        .unwrap()
        {
            let path = entry.unwrap().path();
            if path.file_name().unwrap().to_str().unwrap() < "0012" {
                std::fs::copy(&path, older.path().join(path.file_name().unwrap())).unwrap();
            }
        }
        {
            let pool = AnyPoolOptions::new().max_connections(1).connect(&url).await.unwrap();
            sqlx::migrate::Migrator::new(older.path()).await.unwrap().run(&pool).await.unwrap();
            sqlx::query("INSERT INTO stacks (id, name) VALUES ('s1', 'acme/web/old')")
                .execute(&pool)
                .await
                .unwrap();
            sqlx::query("INSERT INTO stack_versions (stack_id, version, origin, source_format, resource_count, export_json) VALUES ('s1', 1, 'upload', 'stack export v3', 0, '{\"old\":true}')")
                .execute(&pool)
                .await
                .unwrap();
            pool.close().await;
        }
        let store = Store::connect(&url).await.unwrap();
        assert_eq!(
            store.stacks().version("s1", None).await.unwrap().export_json,
            "{\"old\":true}",
            "{url}"
        );
        let v2 = store
            .stacks()
            .add_version(&StackName::parse("acme/web/old").unwrap(), new("{\"new\":true}"))
            .await
            .unwrap();
        assert_eq!(
            (v2.version, store.stacks().version("s1", None).await.unwrap().export_json),
            (2, "{\"new\":true}".to_string())
        );
        assert!(
            sqlx::query("UPDATE stack_versions SET origin = 'x'")
                .execute(&store.pool)
                .await
                .is_err(),
            "versions stay immutable"
        );
        assert!(
            sqlx::query("DELETE FROM stack_versions").execute(&store.pool).await.is_err(),
            "versions stay immutable"
        );
    }
}

#[tokio::test]
async fn the_payload_key_check_is_recorded_once_and_compared() {
    for store in stores().await {
        use server_facts::KeyCheck;
        assert_eq!(store.check_payload_key("aaaa").await.unwrap(), KeyCheck::Recorded);
        assert_eq!(store.check_payload_key("aaaa").await.unwrap(), KeyCheck::Matches);
        assert_eq!(store.check_payload_key("bbbb").await.unwrap(), KeyCheck::Differs);
    }
}

#[tokio::test]
async fn the_managed_index_follows_uploads_and_commits_in_their_transaction() {
    use managed::{ManagedChange, ManagedResource};
    let r = |urn: &str, id: &str| ManagedResource {
        urn: urn.into(),
        type_: "t:index:T".into(),
        id: id.into(),
    };
    for store in stores().await {
        let name = StackName::parse("acme/p/s").unwrap();
        let first = NewVersion {
            managed: ManagedChange::All(vec![r("u1", "i1"), r("u2", "i2")]),
            ..new("{}")
        };
        let stack = store.stacks().add_version(&name, first).await.unwrap();
        let other = StackName::parse("globex/p/s").unwrap();
        store
            .stacks()
            .add_version(
                &other,
                NewVersion { managed: ManagedChange::All(vec![r("u9", "i1")]), ..new("{}") },
            )
            .await
            .unwrap();
        let ids = |rows: Vec<(String, managed::ManagedBy)>| {
            rows.into_iter().map(|(id, by)| format!("{id}@{}", by.urn)).collect::<Vec<_>>()
        };
        assert_eq!(
            ids(store.stacks().managed_of_type("acme", "t:index:T").await.unwrap()),
            ["i1@u1", "i2@u2"],
            "never another organisation's"
        );
        assert!(store.stacks().stale_managed_stacks("acme").await.unwrap().is_empty());
        // A commit's delta applies to the rows of the version before.
        let delta = ManagedChange::Delta {
            upserted: vec![r("u3", "i3"), r("u1", "i1b")],
            removed: vec!["u2".into()],
        };
        commit_on_version_1(&store, &stack.id, delta).await;
        assert_eq!(
            ids(store.stacks().managed_of_type("acme", "t:index:T").await.unwrap()),
            ["i1b@u1", "i3@u3"]
        );
        // A version that does not say leaves the rows stale, to be rebuilt.
        store.stacks().add_version(&name, new("{}")).await.unwrap();
        assert_eq!(
            store.stacks().stale_managed_stacks("acme").await.unwrap(),
            [(stack.id.clone(), 3)]
        );
        store.stacks().rebuild_managed(&stack.id, 3, vec![r("u4", "i4")]).await.unwrap();
        assert_eq!(
            ids(store.stacks().managed_of_type("acme", "t:index:T").await.unwrap()),
            ["i4@u4"]
        );
        assert!(store.stacks().stale_managed_stacks("acme").await.unwrap().is_empty());
    }
}

#[tokio::test]
async fn the_managed_index_writes_more_rows_than_one_statement_holds() {
    // More rows than a statement holds (500), so the index is written and changed in several,
    // each with its own placeholders (SQLite's anonymous, PostgreSQL's numbered).
    use managed::{ManagedChange, ManagedResource};
    let r = |i: usize, id: &str| ManagedResource {
        urn: format!("urn:pulumi:s::p::t:index:T::r{i:04}"),
        type_: "t:index:T".into(),
        id: format!("{id}{i}"),
    };
    for store in stores().await {
        let name = StackName::parse("acme/p/big").unwrap();
        let all = (0..1201).map(|i| r(i, "a")).collect();
        let first = NewVersion { managed: ManagedChange::All(all), ..new("{}") };
        let stack = store.stacks().add_version(&name, first).await.unwrap();
        let count = |rows: &[(String, managed::ManagedBy)], prefix: &str| {
            rows.iter().filter(|(id, _)| id.starts_with(prefix)).count()
        };
        let rows = store.stacks().managed_of_type("acme", "t:index:T").await.unwrap();
        assert_eq!((rows.len(), count(&rows, "a")), (1201, 1201));
        // 550 gone; 700 changed (the first 101) or added; the first 550 left as they were.
        let delta = ManagedChange::Delta {
            upserted: (1100..1800).map(|i| r(i, "b")).collect(),
            removed: (550..1100).map(|i| r(i, "").urn).collect(),
        };
        commit_on_version_1(&store, &stack.id, delta).await;
        let rows = store.stacks().managed_of_type("acme", "t:index:T").await.unwrap();
        assert_eq!((rows.len(), count(&rows, "a"), count(&rows, "b")), (1250, 550, 700));
        assert!(rows.iter().all(|(_, by)| by.stack_id == stack.id));
    }
}

/// Commits a preview made on version 1 of `stack_id`, changing the index by `managed`.
async fn commit_on_version_1(store: &Store, stack_id: &str, managed: managed::ManagedChange) {
    let (preview, _) =
        store.stacks().add_preview(stack_id, 1, "{}", &PackedJson::pack("{}"), "").await.unwrap();
    store
        .stacks()
        .commit_preview(
            &store.stacks().preview(&preview).await.unwrap(),
            NewVersion { managed, ..new("{}") },
        )
        .await
        .unwrap();
}

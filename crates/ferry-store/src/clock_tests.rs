//! The store's one clock: every time it writes, in every table, is the clock's, never a
//! column's SQL default or the system's time, in both databases.

use super::tests::{new, new_plan, stores};
use super::*;

const START: &str = "2001-02-03T04:05:06.000Z";

/// Every table with a time column (a name ending `_at`, or `at`, or `lease_until`), with those
/// columns.
async fn time_columns(store: &Store) -> Vec<(String, Vec<String>)> {
    let sql = match store.dialect {
        Dialect::Sqlite => {
            "SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p \
             WHERE m.type = 'table' ORDER BY m.name, p.name"
        }
        Dialect::Postgres => {
            "SELECT CAST(table_name AS TEXT), CAST(column_name AS TEXT) FROM information_schema.columns \
             WHERE table_schema = current_schema() ORDER BY table_name, column_name"
        }
    };
    let rows: Vec<(String, String)> = sqlx::query_as(sql).fetch_all(&store.pool).await.unwrap();
    let mut tables: Vec<(String, Vec<String>)> = Vec::new();
    for (table, column) in rows {
        if !(column.ends_with("_at") || column == "at" || column == "lease_until") {
            continue;
        }
        match tables.last_mut() {
            Some((last, columns)) if *last == table => columns.push(column),
            _ => tables.push((table, vec![column])),
        }
    }
    tables
}

#[tokio::test]
async fn every_time_the_store_writes_is_its_clocks() {
    for store in stores().await {
        let clock = Clock::manual(time::macros::datetime!(2001-02-03 04:05:06 UTC));
        let store = store.with_clock(clock.clone());
        let name = StackName::parse("acme/web/prod").unwrap();
        let stack = store.stacks().add_version(&name, new("{}")).await.unwrap();
        store.stacks().set_stack_config(&stack.id, "config: {}").await.unwrap();
        store
            .stacks()
            .add_connected_stack(
                &StackName::parse("acme/web/diy").unwrap(),
                new("{}"),
                "file:///srv",
                "diy",
                Some("config: {}"),
            )
            .await
            .unwrap();
        store
            .stacks()
            .add_backend_lock("l", &stack.id, "file:///srv", "i", &clock.now())
            .await
            .unwrap();
        store.stacks().release_backend_lock("l", None).await.unwrap();
        let (preview_id, created_at) = store
            .stacks()
            .add_preview(&stack.id, 1, "{}", &PackedJson::pack("{}"), "")
            .await
            .unwrap();
        assert_eq!(created_at, START);
        let preview = store.stacks().preview(&preview_id).await.unwrap();
        store.stacks().commit_preview(&preview, new("{}")).await.unwrap();

        let user = store
            .accounts()
            .add_user(accounts::NewUser { name: "ann", ..Default::default() })
            .await
            .unwrap();
        store.accounts().grant_role(&user.id, "acme", "admin").await.unwrap();
        store
            .accounts()
            .add_session("s", &user.id, 60, accounts::SessionMethod::Password)
            .await
            .unwrap();
        store.accounts().revoke_session("s").await.unwrap();
        let token =
            store.accounts().add_api_token("t", &user.id, "ci", "acme", "admin", 60).await.unwrap();
        store.accounts().revoke_api_token(&user.id, &token.id).await.unwrap();
        store.accounts().add_sign_in_link("k", &user.id, 60).await.unwrap();
        store.accounts().use_sign_in_link("k").await.unwrap();
        let login =
            accounts::OidcLogin { verifier: "v".into(), nonce: "n".into(), next: "/".into() };
        store.accounts().add_oidc_login("o", &login, 60).await.unwrap();
        store
            .accounts()
            .append_audit(accounts::NewAuditRecord {
                actor: "ann",
                org: Some("acme"),
                action: "a",
                object: "o",
                address: "127.0.0.1",
                outcome: "ok",
                plan_id: None,
                subject: None,
            })
            .await
            .unwrap();
        let invitation = store
            .accounts()
            .add_invitation("acme", &["viewer"], &user.id, "inv", 60)
            .await
            .unwrap();
        store.accounts().revoke_invitation("acme", &invitation.id).await.unwrap();

        let plan = new_plan(&store, &stack.id).await;
        store.plans().add_plan_revision(&plan.id, "ann", Some("{}"), None, "{}").await.unwrap();
        let (preview_id, _) = store
            .stacks()
            .add_preview(&stack.id, 2, "{}", &PackedJson::pack("{}"), "")
            .await
            .unwrap();
        store.plans().add_plan_preview(&plan.id, 2, &preview_id).await.unwrap();
        let share = store.plans().add_plan_share(&plan.id, "h", 1).await.unwrap();
        store.plans().revoke_plan_share(&plan.id, &share.id).await.unwrap();
        store
            .plans()
            .add_comment(review::NewComment {
                plan_id: &plan.id,
                revision: 2,
                urn: "u",
                path: None,
                parent_id: None,
                author: "ann",
                body: "b",
            })
            .await
            .unwrap();
        store.plans().add_approval(&plan.id, 2, &preview_id, "bob").await.unwrap();
        store.plans().add_change_request(&plan.id, "bob", 2, &preview_id, "b").await.unwrap();
        store.plans().mark_viewed(&plan.id, "bob", "u", "k").await.unwrap();

        let job = jobs::NewJob {
            id: "j",
            kind: jobs::JobKind::Preview,
            stack_id: &stack.id,
            plan: Some((&plan.id, 2)),
            total: 1,
            detail: None,
        };
        store.jobs().add_job(job, "i", &clock.in_seconds(60)).await.unwrap();
        store.jobs().claim_job("j", "i", &clock.in_seconds(60)).await.unwrap();
        store.jobs().end_job("j", jobs::JobStatus::Done, None, 0, None).await.unwrap();

        let webhook = store
            .webhooks()
            .add_webhook(
                "acme",
                "https://hooks.example",
                &[webhooks::WebhookEvent::PlanCommitted],
                "s",
                "ann",
            )
            .await
            .unwrap();
        store
            .webhooks()
            .add_deliveries(
                &[webhook.webhook.id],
                webhooks::WebhookEvent::PlanCommitted,
                &plan.id,
                "{}",
            )
            .await
            .unwrap();

        // Every row of every table with a time was written with the clock's, and every such
        // table was written to: a table added later with a time of its own is checked here too.
        let mut empty = Vec::new();
        for (table, columns) in time_columns(&store).await {
            let rows: i64 = sqlx::query_scalar(&format!("SELECT COUNT(*) FROM {table}"))
                .fetch_one(&store.pool)
                .await
                .unwrap();
            if rows == 0 {
                empty.push(table.clone());
            }
            for column in columns {
                let others: Vec<String> = sqlx::query_scalar(&format!(
                    "SELECT {column} FROM {table} WHERE {column} IS NOT NULL AND {column} NOT LIKE '2001-%'"
                ))
                .fetch_all(&store.pool)
                .await
                .unwrap();
                assert!(
                    others.is_empty(),
                    "{table}.{column} holds times not the clock's: {others:?}"
                );
            }
        }
        assert_eq!(empty, Vec::<String>::new(), "tables with times this test never wrote to");
    }
}

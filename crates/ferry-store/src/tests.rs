//! Store behaviour: versions append, never overwrite; failures leave nothing behind.

use super::*;

fn new(json: &str) -> NewVersion<'_> {
    NewVersion { origin: "upload", source_format: "stack export v3", resource_count: 2, export_json: json }
}

#[tokio::test]
async fn versions_append_and_the_latest_wins() {
    let store = Store::open_in_memory().await.unwrap();
    let name = StackName::parse("acme/web/prod").unwrap();
    let v1 = store.add_version(&name, new("{\"v\":1}")).await.unwrap();
    let v2 = store.add_version(&name, new("{\"v\":2}")).await.unwrap();
    assert_eq!((v1.version, v2.version), (1, 2));
    assert_eq!(v1.id, v2.id);
    assert_eq!(store.version(&v1.id, None).await.unwrap().export_json, "{\"v\":2}");
    assert_eq!(store.version(&v1.id, Some(1)).await.unwrap().export_json, "{\"v\":1}");
    assert_eq!(store.versions(&v1.id).await.unwrap().len(), 2);
    let list = store.list_stacks().await.unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].version, 2);
}

#[tokio::test]
async fn versions_cannot_be_changed_or_removed() {
    let store = Store::open_in_memory().await.unwrap();
    let s = store.add_version(&StackName::parse("a/b/c").unwrap(), new("{}")).await.unwrap();
    let update = sqlx::query("UPDATE stack_versions SET export_json = 'x'").execute(&store.pool).await;
    assert!(update.unwrap_err().to_string().contains("immutable"));
    let delete = sqlx::query("DELETE FROM stack_versions").execute(&store.pool).await;
    assert!(delete.unwrap_err().to_string().contains("immutable"));
    assert_eq!(store.version(&s.id, None).await.unwrap().export_json, "{}");
}

#[tokio::test]
async fn a_failed_write_leaves_no_stack_behind() {
    let store = Store::open_in_memory().await.unwrap();
    // Make the version insert fail after the stack row was written in the same transaction.
    sqlx::query("CREATE TRIGGER fail BEFORE INSERT ON stack_versions BEGIN SELECT RAISE(ABORT, 'boom'); END").execute(&store.pool).await.unwrap();
    let err = store.add_version(&StackName::parse("a/b/c").unwrap(), new("{}")).await.unwrap_err();
    assert!(err.to_string().contains("boom"));
    assert!(store.list_stacks().await.unwrap().is_empty());
    let stacks: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM stacks").fetch_one(&store.pool).await.unwrap();
    assert_eq!(stacks, 0);
}

#[tokio::test]
async fn the_store_file_survives_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ferry.db");
    let id = {
        let store = Store::open(&path).await.unwrap();
        store.add_version(&StackName::parse("a/b/c").unwrap(), new("{}")).await.unwrap().id
    };
    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.stack(&id).await.unwrap().name, "a/b/c");
    assert!(matches!(store.stack("nope").await, Err(StoreError::StackNotFound(_))));
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
    let store = Store::open_in_memory().await.unwrap();
    let stack = store.add_version(&StackName::parse("a/b/c").unwrap(), new("{}")).await.unwrap().id;
    let plan = store.add_plan(&stack, "t", Some("{}"), None, "{}").await.unwrap();
    assert_eq!(plan.revision, 1);
    let second = store.add_plan_revision(&plan.id, None, Some("resources: {}"), "{}").await.unwrap();
    assert_eq!((second.revision, second.program.as_deref()), (2, Some("resources: {}")));
    for sql in ["UPDATE plan_revisions SET spec = 'x'", "DELETE FROM plan_revisions"] {
        let err = sqlx::query(sql).execute(&store.pool).await.unwrap_err();
        assert!(err.to_string().contains("immutable"), "{sql}: {err}");
    }
    assert_eq!(store.plan_revision(&plan.id, Some(1)).await.unwrap().spec.as_deref(), Some("{}"));
    assert!(matches!(store.add_plan("nope", "t", None, None, "{}").await, Err(StoreError::StackNotFound(_))));
    let share = store.add_plan_share(&plan.id).await.unwrap();
    assert_ne!(share.token, plan.id);
    let revoked = store.revoke_plan_share(&plan.id, &share.token).await.unwrap();
    assert!(revoked.revoked_at.is_some());
    assert!(matches!(store.revoke_plan_share("other", &share.token).await, Err(StoreError::ShareNotFound)));
}

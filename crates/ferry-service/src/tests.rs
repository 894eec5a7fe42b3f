//! Service behaviour against a real in-memory store.

use super::*;

async fn service() -> Arc<Ferry> {
    Arc::new(Ferry::new(ferry_store::testing::scratch().await.unwrap(), 1024 * 1024))
}

#[tokio::test]
async fn demo_stack_loads_once_with_masked_secrets() {
    let ferry = service().await;
    let s = ferry.stacks();
    let created = s.ensure_demo().await.unwrap().expect("first start creates it");
    assert_eq!(created.name, DEMO_STACK);
    assert!(s.ensure_demo().await.unwrap().is_none(), "second start leaves it alone");
    let v = s.version(&created.id, None).await.unwrap();
    let rows = v.rows_page(&RowQuery { limit: MAX_PAGE_ROWS, ..Default::default() }).unwrap().rows;
    assert_eq!(rows.len() as i64, created.resources);
    let pw = rows.iter().find(|r| r.name == "admin-password").unwrap();
    let detail = v.detail(&pw.urn).unwrap();
    assert_eq!(detail.secrets, 2);
    assert!(detail.outputs.contains("[secret]"));
    assert!(!detail.outputs.contains("ciphertext"));
    let graph = v.graph();
    assert_eq!(graph.nodes.len(), rows.len());
    assert!(graph.edges.iter().any(|e| e.kind == ferry_state::EdgeKind::Provider));
    assert!(graph.edges.iter().any(|e| e.kind == ferry_state::EdgeKind::Dependency));
}

#[tokio::test]
async fn a_bad_upload_stores_nothing() {
    let ferry = service().await;
    let s = ferry.stacks();
    let err = s
        .upload(
            Some("a/b/c"),
            b"{\"version\": 3, \"deployment\": {\"resources\": [{\"urn\": \"x\"}]}}".to_vec(),
            None,
            "upload",
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_state");
    let err =
        s.upload(Some("a/b/c"), vec![b' '; 2 * 1024 * 1024], None, "upload").await.unwrap_err();
    assert_eq!(err.code(), "too_large");
    let err = s.upload(Some("bad name"), b"{}".to_vec(), None, "upload").await.unwrap_err();
    assert_eq!(err.code(), "invalid_name");
    assert!(s.list().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_checkpoint_names_its_own_stack() {
    let ferry = service().await;
    let s = ferry.stacks();
    let file =
        br#"{"version":3,"checkpoint":{"stack":"acme/site/prod","latest":{"resources":[]}}}"#;
    let out = s.upload(None, file.to_vec(), None, "upload").await.unwrap();
    assert_eq!(out.summary.name, "acme/site/prod");
    let file = br#"{"version":3,"checkpoint":{"stack":"prod","latest":{"resources":[]}}}"#;
    let err = s.upload(None, file.to_vec(), None, "upload").await.unwrap_err();
    assert_eq!(err.code(), "name_required");
    assert!(err.to_string().contains("`prod`"));
}

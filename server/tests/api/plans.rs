//! Plans through the API: immutable revisions, background previews streamed as server-sent
//! events, read-only share links that reveal no plan or preview ID and can be revoked.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{call, get};
use ferry_types::plans::{CodeStyle, PlanInput, PlanOptions, PlanView};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

fn post(uri: &str, body: Value) -> Request<Body> {
    Request::post(uri)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

const SPEC: &str = r#"{"resources": [
    {"type": "random:index/randomInteger:RandomInteger", "name": "port-a", "id": "7,1,10"},
    {"type": "random:index/randomInteger:RandomInteger", "name": "port-b", "id": "8,1,10"},
    {"type": "random:index/randomPet:RandomPet", "name": "pet", "id": "x"}
]}"#;

/// The plan page saves a revision as a `PlanInput`, the type the API reads: what it writes is
/// what the API keeps, options included, and the plan reads back as the same type.
#[tokio::test]
async fn a_revision_saved_as_the_page_writes_it_keeps_what_it_sent() {
    let app = common::app(true).await;
    let (_, stacks) = call(&app, get("/api/v1/stacks")).await;
    let stack = stacks[0]["id"].as_str().unwrap().to_string();
    let first =
        PlanInput { title: Some("Ports".into()), spec: Some(SPEC.into()), ..Default::default() };
    let (status, plan) = call(
        &app,
        post(&format!("/api/v1/stacks/{stack}/plans"), serde_json::to_value(&first).unwrap()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let id = plan["id"].as_str().unwrap().to_string();

    let options =
        PlanOptions { code_style: CodeStyle::CodeFirst, elide: false, ..Default::default() };
    let revised = PlanInput {
        title: None,
        spec: Some(SPEC.replace("port-b", "port-c")),
        program: None,
        options: options.clone(),
    };
    let (status, saved) = call(
        &app,
        post(&format!("/api/v1/plans/{id}/revisions"), serde_json::to_value(&revised).unwrap()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{saved}");
    let saved: PlanView = serde_json::from_value(saved).unwrap();
    assert_eq!(
        (saved.current.revision, saved.current.spec, saved.current.program, saved.current.options),
        (2, revised.spec, None, options)
    );
}

#[tokio::test]
async fn a_plan_is_revised_previewed_in_the_background_and_shared_read_only() {
    let app = common::app(true).await;
    let (_, stacks) = call(&app, get("/api/v1/stacks")).await;
    let stack = stacks[0]["id"].as_str().unwrap().to_string();

    // Invalid specs never become a plan.
    let (status, error) = call(
        &app,
        post(
            &format!("/api/v1/stacks/{stack}/plans"),
            json!({"spec": "{\"resources\": [{\"type\": \"a:b:C\"}]}"}),
        ),
    )
    .await;
    assert_eq!(
        (status, error["error"]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!("invalid_spec")),
        "{error}"
    );
    let (status, error) =
        call(&app, post(&format!("/api/v1/stacks/{stack}/plans"), json!({"title": "nothing"})))
            .await;
    assert_eq!(
        (status, error["error"]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!("invalid_plan"))
    );

    let (status, plan) = call(
        &app,
        post(&format!("/api/v1/stacks/{stack}/plans"), json!({"title": "Ports", "spec": SPEC})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let id = plan["id"].as_str().unwrap().to_string();
    assert!(id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()), "128 random bits: {id}");
    assert_eq!(
        (plan["revision"].clone(), plan["current"]["revision"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(
        plan["current"]["options"],
        json!({"strategy": "read", "code_style": "cli", "elide": true, "scope": "imports"})
    );

    // Revisions are immutable: saving makes revision 2, revision 1 stays as it was.
    let (status, saved) = call(
        &app,
        post(
            &format!("/api/v1/plans/{id}/revisions"),
            json!({"spec": SPEC.replace("port-b", "port-c")}),
        ),
    )
    .await;
    assert_eq!((status, saved["current"]["revision"].clone()), (StatusCode::CREATED, json!(2)));
    let (_, first) = call(&app, get(&format!("/api/v1/plans/{id}/revisions/1"))).await;
    assert!(first["current"]["spec"].as_str().unwrap().contains("port-b"));

    // A background preview: 202 at once, then every resource as an event, then the end.
    let (status, job) = call(
        &app,
        Request::post(format!("/api/v1/plans/{id}/previews")).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{job}");
    assert_eq!((job["total"].clone(), job["revision"].clone()), (json!(3), json!(2)));
    let job_id = job["id"].as_str().unwrap();
    let res = app
        .clone()
        .oneshot(get(&format!("/api/v1/plans/{id}/jobs/{job_id}/events")))
        .await
        .unwrap();
    assert_eq!(res.headers()["content-type"], "text/event-stream");
    let text =
        String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    let events: Vec<(&str, Value)> = text
        .split("\n\n")
        .filter(|b| !b.trim().is_empty() && !b.starts_with(':'))
        .map(|block| {
            let kind = block.lines().find_map(|l| l.strip_prefix("event: ")).unwrap();
            let data = block.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
            (kind, serde_json::from_str(data).unwrap())
        })
        .collect();
    assert_eq!(events.iter().filter(|(k, _)| *k == "resource").count(), 3, "{text}");
    let (kind, end) = events.last().unwrap();
    assert_eq!(
        (*kind, end["status"].clone(), end["finished"].clone()),
        ("end", json!("done"), json!(3))
    );
    // The end carries the job, not its events again: the stream has just given every one.
    assert_eq!(end["events"], json!([]), "{end}");
    let statuses: Vec<&str> = events
        .iter()
        .filter(|(k, _)| *k == "resource")
        .map(|(_, e)| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses.iter().filter(|s| **s == "ready").count(), 2, "{statuses:?}");
    let preview_id = end["preview_id"].as_str().unwrap().to_string();
    let (_, plan) = call(&app, get(&format!("/api/v1/plans/{id}"))).await;
    assert_eq!(plan["current"]["previews"], json!([preview_id]));
    // Coming back to a finished job replays it.
    let (_, again) = call(&app, get(&format!("/api/v1/plans/{id}/jobs/{job_id}"))).await;
    assert_eq!(
        (again["status"].clone(), again["events"].as_array().unwrap().len()),
        (json!("done"), 3)
    );
    let (_, cancelled) = call(
        &app,
        Request::post(format!("/api/v1/plans/{id}/jobs/{job_id}/cancel"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(cancelled["status"], "done", "a finished job stays finished");

    // A read-only link: no plan ID, no preview ID (those edit and commit), revocable.
    let (status, share) = call(
        &app,
        Request::post(format!("/api/v1/plans/{id}/shares")).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let token = share["token"].as_str().unwrap();
    assert_eq!(token.len(), 32);
    let (status, shared) = call(&app, get(&format!("/api/v1/shared/{token}"))).await;
    assert_eq!(status, StatusCode::OK, "{shared}");
    assert_eq!(
        (shared["read_only"].clone(), shared["id"].clone(), shared["current"]["previews"].clone()),
        (json!(true), json!(""), json!(["0"]))
    );
    assert!(!shared.to_string().contains(&id) && !shared.to_string().contains(&preview_id));
    // Each revision's whole text, as a linked page's editor fetches it, its import IDs masked.
    let (status, first) = call(&app, get(&format!("/api/v1/shared/{token}?revision=1"))).await;
    assert_eq!((status, first["current"]["revision"].clone()), (StatusCode::OK, json!(1)));
    let text = first["current"]["spec"].as_str().unwrap();
    assert!(
        text.contains("\"port-b\"") && text.contains("[secret]") && !text.contains("7,1,10"),
        "{text}"
    );
    let (status, shared_preview) =
        call(&app, get(&format!("/api/v1/shared/{token}/previews/0"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (shared_preview["id"].clone(), shared_preview["preview"]["counts"]["ready"].clone()),
        (json!(""), json!(2))
    );
    // Listed by ID, without the token (shown once, above); revoked by the ID.
    let (_, listed) = call(&app, get(&format!("/api/v1/plans/{id}/shares"))).await;
    assert!(!listed.to_string().contains(token), "{listed}");
    let link = share["id"].as_str().unwrap();
    let (status, _) = call(
        &app,
        Request::delete(format!("/api/v1/plans/{id}/shares/{token}")).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a link is not revoked by its token");
    let (status, _) = call(
        &app,
        Request::delete(format!("/api/v1/plans/{id}/shares/{link}")).body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = call(&app, get(&format!("/api/v1/shared/{token}"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a revoked link is gone");
    let (status, _) = call(&app, get("/api/v1/plans/00000000000000000000000000000000")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

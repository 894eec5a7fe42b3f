//! Nothing of one organisation reaches another. Two organisations hold look-alike stacks (the
//! same resource types, the same cloud IDs, a stack each importing them); a member of one walks
//! every read route the router has (from its own table, as the access matrix does), every page,
//! every event stream and every server function, on its own organisation's objects, and no
//! answer carries any name, ID, URN, user or text of the other organisation's. Its discovery
//! of what the other organisation manages shows it unmanaged, never "in another stack".

use crate::common;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use axum::Router;
use ferry_service::access::Role;
use ferry_service::Ferry;
use http_body_util::BodyExt;
use serde_json::json;
use tower::ServiceExt;

/// One organisation's objects.
struct Org {
    token: String,
    stack: String,
    plan: String,
    preview: String,
    urn: String,
    job: String,
    share: String,
    discovery: String,
    identification: String,
}

/// A state of `test:index:Thing` resources, one per ID, as stack `project`/`stack` holds them.
fn state(project: &str, stack: &str, ids: &[&str]) -> String {
    let root = format!("urn:pulumi:{stack}::{project}::pulumi:pulumi:Stack::{project}-{stack}");
    let provider = format!("urn:pulumi:{stack}::{project}::pulumi:providers:test::default");
    let mut resources = vec![
        json!({"urn": root, "type": "pulumi:pulumi:Stack", "custom": false}),
        json!({"urn": provider, "type": "pulumi:providers:test", "custom": true, "id": "00000000-0000-0000-0000-000000000001", "inputs": {}, "outputs": {}}),
    ];
    for id in ids {
        resources.push(json!({
            "urn": format!("urn:pulumi:{stack}::{project}::test:index:Thing::{project}-{id}"),
            "type": "test:index:Thing", "custom": true, "id": id, "parent": root,
            "provider": format!("{provider}::00000000-0000-0000-0000-000000000001"),
            "inputs": {}, "outputs": {"value": id},
        }));
    }
    json!({"version": 3, "deployment": {"manifest": {"time": "2026-11-01T00:00:00Z", "magic": "", "version": "v3.200.0"}, "resources": resources}}).to_string()
}

/// What one organisation holds: its stack `org/project/stack` managing `managed`, a plan with a
/// preview, a link, a comment, a discovery and an identification.
struct Holdings<'a> {
    org: &'a str,
    project: &'a str,
    stack: &'a str,
    managed: &'a [&'a str],
    plan_title: &'a str,
    comment: &'a str,
}

async fn org(app: &Router, stacks: &Arc<Ferry>, h: Holdings<'_>) -> Org {
    let Holdings { org, project, stack: stack_name, managed, plan_title, comment } = h;
    let token = common::token_for(stacks, &format!("{org}-admin"), org, Role::Admin).await;
    let app = common::as_caller(app.clone(), token.clone());
    let req = Request::post(format!("/api/v1/stacks?name={org}/{project}/{stack_name}"))
        .body(Body::from(state(project, stack_name, managed)))
        .unwrap();
    let (status, stack) = common::call(&app, req).await;
    assert_eq!(status, StatusCode::CREATED, "{stack}");
    let stack = stack["id"].as_str().unwrap().to_string();
    let spec = json!({"resources": [{"type": "test:index:Thing", "name": format!("{project}-imported"), "id": "thing-11"}]});
    let body = json!({"title": plan_title, "spec": spec.to_string()}).to_string();
    let (status, plan) =
        common::call(&app, common::post(&format!("/api/v1/stacks/{stack}/plans"), &body)).await;
    assert_eq!(status, StatusCode::CREATED, "{plan}");
    let plan = plan["id"].as_str().unwrap().to_string();
    let (preview, record) = common::plan_preview(&app, &plan).await;
    let urn = record["preview"]["resources"][0]["urn"].as_str().unwrap().to_string();
    let (_, jobs) = common::call(&app, common::get(&format!("/api/v1/plans/{plan}/jobs"))).await;
    let job = jobs[0]["id"].as_str().unwrap().to_string();
    let (_, share) =
        common::call(&app, common::post(&format!("/api/v1/plans/{plan}/shares"), "")).await;
    let share = share["token"].as_str().unwrap().to_string();
    let (status, _) = common::call(
        &app,
        common::post_json(
            &format!("/api/v1/plans/{plan}/comments"),
            &json!({"revision": 1, "urn": urn, "body": comment}).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let discovery = common::discovery(&app, &stack, json!([{"type": "test:index:Thing"}])).await;
    let discovery = discovery["id"].as_str().unwrap().to_string();
    let program = "name: p\nruntime: yaml\nresources:\n  t:\n    type: test:index:Thing\n";
    let (status, identification) = common::call(
        &app,
        common::post_json(
            &format!("/api/v1/stacks/{stack}/identifications"),
            &json!({"program": program}).to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{identification}");
    let identification = identification["id"].as_str().unwrap().to_string();
    Org { token, stack, plan, preview, urn, job, share, discovery, identification }
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_of_one_organisation_reaches_another() {
    let store = ferry_store::testing::scratch().await.unwrap();
    let plugins = tempfile::tempdir().unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        let wrapper = plugins.path().join("pulumi-resource-test");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nexec '{}' \"$@\"\n",
                common::plugin_dir().join("ferry-test-provider").display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let engine = ferry_service::EngineConfig::new(
        vec![plugins.path().to_path_buf(), common::plugin_dir()],
        None,
        ferry_state::secrets::random_key(),
    );
    let (app, stacks) =
        common::bare_app_of(Ferry::new(store, 1 << 20).with_engine(engine), false).await;
    // The scripted plugin's package, allowed to every organisation by an administrator.
    let test = ferry_types::OrgSettingsView {
        allowed_packages: vec!["test".into()],
        ..Default::default()
    };
    stacks.accounts().set_org_settings("*", test).await.unwrap();
    // The other organisation goes first, so that whatever a shared index holds, it holds theirs.
    let globex = Holdings {
        org: "globex",
        project: "globex-shop",
        stack: "globex-prod",
        managed: &["thing-03", "thing-07", "thing-19"],
        plan_title: "globex secret plan",
        comment: "globex-only remark",
    };
    let globex = org(&app, &stacks, globex).await;
    let acme = Holdings {
        org: "acme",
        project: "shop",
        stack: "prod",
        managed: &["thing-03", "thing-07"],
        plan_title: "acme plan",
        comment: "acme remark",
    };
    let acme = org(&app, &stacks, acme).await;
    let globex_user = stacks.accounts().grant("globex-gus", "globex", Role::Planner).await.unwrap();
    let gus = stacks
        .accounts()
        .issue_api_token(&globex_user.id, "t", "globex", Role::Planner, 3600)
        .await
        .unwrap()
        .token
        .unwrap();
    let gus_app = common::as_caller(app.clone(), gus);
    common::call(&gus_app, common::get("/api/v1/me")).await;

    let forbidden: Vec<String> = vec![
        "globex".into(),
        globex.stack.clone(),
        globex.plan.clone(),
        globex.preview.clone(),
        globex.job.clone(),
        globex.share.clone(),
        globex.discovery.clone(),
        globex.identification.clone(),
        globex.urn.clone(),
        globex.token.clone(),
    ];

    // Acme's discovery lists thing-00 to thing-24: what only globex manages is unmanaged to
    // acme; what acme manages is in this stack.
    let acme_app = common::as_caller(app.clone(), acme.token.clone());
    let (_, view) =
        common::call(&acme_app, common::get(&format!("/api/v1/discoveries/{}", acme.discovery)))
            .await;
    let result = |id: &str| {
        view["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["kind"] == "result" && e["id"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(result("thing-03")["status"], "in-this-stack", "{view}");
    assert_eq!(
        result("thing-19")["status"],
        "unmanaged",
        "managed only by the other organisation: {view}"
    );
    assert_eq!(result("thing-11")["status"], "unmanaged", "{view}");

    let table = crate::common::access_table().await;
    // An invitation of acme's, for the routes that read one by its link's token.
    let acme_admin = stacks.accounts().grant("acme-admin", "acme", Role::Admin).await.unwrap();
    let session = stacks
        .accounts()
        .start_session(&acme_admin.id, ferry_store::accounts::SessionMethod::Password)
        .await
        .unwrap();
    let caller = stacks.accounts().caller_of_session(&session.0).await.unwrap();
    let input = ferry_types::invitations::InvitationInput {
        roles: vec![ferry_types::Role::Viewer],
        days: None,
    };
    let invitation = stacks.accounts().invite(&caller, "acme", &input).await.unwrap().token;
    // A webhook of each organisation (globex's URL names globex: it must not reach acme).
    let hook =
        |url: &str| ferry_types::webhooks::WebhookInput { url: url.into(), events: Vec::new() };
    let acme_hook = stacks
        .webhooks()
        .create(&caller, "acme", &hook("https://hooks.acme.example/ferry"))
        .await
        .unwrap()
        .webhook
        .id;
    let globex_admin =
        stacks.accounts().grant("globex-admin", "globex", Role::Admin).await.unwrap();
    let session = stacks
        .accounts()
        .start_session(&globex_admin.id, ferry_store::accounts::SessionMethod::Password)
        .await
        .unwrap();
    let globex_caller = stacks.accounts().caller_of_session(&session.0).await.unwrap();
    stacks
        .webhooks()
        .create(&globex_caller, "globex", &hook("https://hooks.globex.example/ferry"))
        .await
        .unwrap();
    let mut walked = 0;
    let mut leaks = Vec::new();
    for d in table.decisions().filter(|d| d.method == Method::GET) {
        let path = d.path.as_str();
        if path.starts_with("/auth/") {
            continue;
        }
        let id = if path.contains("/webhooks/") {
            &acme_hook
        } else if path.starts_with("/api/v1/stacks/") || path.starts_with("/stacks/") {
            &acme.stack
        } else if path.starts_with("/api/v1/plans/") || path.starts_with("/plans/") {
            &acme.plan
        } else if path.starts_with("/api/v1/previews/") {
            &acme.preview
        } else if path.starts_with("/api/v1/identifications/") {
            &acme.identification
        } else {
            &acme.discovery
        };
        let mut uri = path
            .replace("{id}", id)
            .replace("{job}", &acme.job)
            .replace(
                "{token}",
                if path.contains("invitations/") { &invitation } else { &acme.share },
            )
            .replace("{revision}", "1")
            .replace("{rev}", "1")
            .replace("{index}", "0")
            .replace("{org}", "acme");
        if path.ends_with("/resource") {
            let urn = if path.contains("/previews/") {
                acme.urn.clone()
            } else {
                "urn:pulumi:prod::shop::test:index:Thing::shop-thing-03".to_string()
            };
            uri.push_str(&format!(
                "?urn={}",
                url::form_urlencoded::byte_serialize(urn.as_bytes()).collect::<String>()
            ));
        }
        if path == "/api/v1/backends/stacks" || path.ends_with("/migrations/terraform/workspaces") {
            continue; // no backend is allowed in this world (its refusal names nothing)
        }
        let req = Request::get(&uri)
            .header(header::AUTHORIZATION, format!("Bearer {}", acme.token))
            .body(Body::empty())
            .unwrap();
        let res = app.clone().oneshot(req).await.unwrap();
        let status = res.status();
        let bytes =
            tokio::time::timeout(std::time::Duration::from_secs(20), res.into_body().collect())
                .await
                .unwrap()
                .unwrap()
                .to_bytes();
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if path == "/api/v1/openapi.json" {
            // Its examples are text compiled into the server, the same for every caller, recorded
            // from these tests' worlds (whose organisations they may name); the rest is checked.
            let mut document: serde_json::Value = serde_json::from_str(&text).unwrap();
            for operation in document["paths"].as_object_mut().unwrap().values_mut() {
                for answer in operation.as_object_mut().unwrap().values_mut() {
                    for response in answer["responses"].as_object_mut().unwrap().values_mut() {
                        if let Some(json) = response.pointer_mut("/content/application~1json") {
                            json.as_object_mut().unwrap().remove("example");
                        }
                    }
                }
            }
            text = document.to_string();
        }
        assert!(status.is_success(), "{uri}: {status} {text}");
        walked += 1;
        for f in &forbidden {
            if text.contains(f.as_str()) {
                leaks.push(format!("{uri} carries `{f}`"));
            }
        }
    }
    // Every server function, with acme's objects.
    for (path, _) in leptos::server_fn::axum::server_fn_paths() {
        let name = path.trim_start_matches("/rpc/").trim_end_matches(|c: char| c.is_ascii_digit());
        let args = match name {
            "stack_page" => format!("id={}", acme.stack),
            "load_resource_detail" => format!("id={}&urn=urn%3Apulumi%3Aprod%3A%3Ashop%3A%3Atest%3Aindex%3AThing%3A%3Ashop-thing-03", acme.stack),
            "stack_rows" => format!("id={}&version=1&filter=&sort=&offset=0&limit=10", acme.stack),
            "plan_page" => format!("id={}&share=", acme.plan),
            "new_plan" => continue,
            "plan_list" => "stack=&state=&awaiting=&author=&cursor=&limit=50".to_string(),
            "stack_versions" => format!("id={}", acme.stack),
            "invitation" => format!("token={invitation}"),
            _ => String::new(),
        };
        let req = Request::post(path)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::AUTHORIZATION, format!("Bearer {}", acme.token))
            .body(Body::from(args))
            .unwrap();
        let res = app.clone().oneshot(req).await.unwrap();
        assert!(res.status().is_success(), "{name}: {}", res.status());
        let text = String::from_utf8_lossy(&res.into_body().collect().await.unwrap().to_bytes())
            .into_owned();
        walked += 1;
        for f in &forbidden {
            if text.contains(f.as_str()) {
                leaks.push(format!("server function {name} carries `{f}`"));
            }
        }
    }
    assert!(leaks.is_empty(), "{}", leaks.join("\n"));
    assert!(walked > 45, "{walked} answers walked");
}

//! The plugin host against a real plugin process (`ferry-test-provider`): discovery, launch,
//! handshake, calls, logs, and every way a plugin can fail.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ferry_engine::plugin::{
    EngineService, LaunchOptions, PluginError, PluginSearch, ProviderPlugin,
};
use ferry_rpc::prost_types::{value::Kind, Struct, Value};
use ferry_rpc::pulumirpc::{CheckRequest, ReadRequest};

/// A folder holding `pulumi-resource-<package>`, a wrapper running the test provider in `mode`.
fn plugin_dir(package: &str, mode: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_wrapper(&dir.path().join(format!("pulumi-resource-{package}")), mode);
    dir
}

fn write_wrapper(path: &Path, mode: &str) {
    let script = format!(
        "#!/bin/sh\nFERRY_TEST_PROVIDER_MODE={mode} exec '{}' \"$@\"\n",
        env!("CARGO_BIN_EXE_ferry-test-provider")
    );
    std::fs::write(path, script).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn search(dir: &Path) -> PluginSearch {
    PluginSearch { ferry_dirs: vec![dir.to_path_buf()], path_dirs: vec![], pulumi_plugins: None }
}

async fn launch(
    mode: &str,
    options: LaunchOptions,
) -> (
    Result<ProviderPlugin, PluginError>,
    EngineService,
    tokio::sync::mpsc::UnboundedReceiver<ferry_engine::plugin::LogEvent>,
    tempfile::TempDir,
) {
    let dir = plugin_dir("test", mode);
    let binary = search(dir.path()).find("test", None).unwrap();
    let (engine, logs) = EngineService::start().await.unwrap();
    let plugin =
        ProviderPlugin::launch(&binary, engine.addr, dir.path(), options, &Default::default())
            .await;
    (plugin, engine, logs, dir)
}

fn quick() -> LaunchOptions {
    LaunchOptions {
        start_timeout: Duration::from_secs(2),
        call_timeout: Duration::from_secs(2),
        ..Default::default()
    }
}

fn read(id: &str) -> ReadRequest {
    ReadRequest {
        id: id.into(),
        urn: format!("urn:pulumi:dev::p::test:index:Thing::{id}"),
        r#type: "test:index:Thing".into(),
        ..Default::default()
    }
}

/// A plugin launched at a background priority runs at it (`ferry serve` lowers its plugins
/// below the server's requests), and one launched without keeps the server's.
#[tokio::test]
async fn a_plugin_runs_at_the_priority_it_was_launched_with() {
    async fn nice_of(plugin: &ProviderPlugin) -> i32 {
        let pid = plugin.process_id().await.expect("the plugin runs");
        let pid = rustix::process::Pid::from_raw(pid as i32).expect("a process ID is positive");
        rustix::process::getpriority_process(Some(pid)).unwrap()
    }
    let own = rustix::process::getpriority_process(None).unwrap();
    let background = ferry_engine::priority::Background::below_current(6);
    let (lowered, _e, _l, _d) =
        launch("ok", LaunchOptions { priority: background, ..quick() }).await;
    let (kept, _e2, _l2, _d2) = launch("ok", quick()).await;
    assert_eq!(Some(nice_of(&lowered.unwrap()).await), background.nice());
    assert_eq!(nice_of(&kept.unwrap()).await, own);
}

#[tokio::test]
async fn a_plugin_starts_shakes_hands_reads_and_logs() {
    let (plugin, _engine, mut logs, _dir) = launch("ok", quick()).await;
    let plugin = plugin.unwrap();
    assert!(plugin.capabilities().handshake);
    assert!(plugin.capabilities().accept_secrets);
    assert_eq!(plugin.get_plugin_info().await.unwrap(), "0.0.1");
    let r = plugin.read(read("abc")).await.unwrap();
    assert_eq!(r.id, "abc");
    assert_eq!(r.inputs.unwrap().fields["value"].kind, Some(Kind::StringValue("abc".into())));
    let log = tokio::time::timeout(Duration::from_secs(5), logs.recv()).await.unwrap().unwrap();
    assert_eq!(log.message, "reading abc");
    assert_eq!(log.urn.as_deref(), Some("urn:pulumi:dev::p::test:index:Thing::abc"));
    // A resource the provider does not find: an empty answer, not an error.
    assert_eq!(plugin.read(read("missing")).await.unwrap().id, "");
    plugin.shutdown().await;
}

#[tokio::test]
async fn check_failures_come_back_as_data() {
    let (plugin, _engine, _logs, _dir) = launch("ok", quick()).await;
    let news = Struct {
        fields: [("badName".to_string(), Value { kind: Some(Kind::StringValue("x".into())) })]
            .into(),
    };
    let r = plugin
        .unwrap()
        .check(CheckRequest { news: Some(news), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(r.failures.len(), 1);
    assert_eq!(r.failures[0].property, "badName");
}

#[tokio::test]
async fn older_plugins_without_handshake_still_work() {
    let (plugin, _engine, _logs, _dir) = launch("legacy", quick()).await;
    let plugin = plugin.unwrap();
    assert!(!plugin.capabilities().handshake);
    assert_eq!(plugin.read(read("x")).await.unwrap().id, "x");
}

#[tokio::test]
async fn a_plugin_that_exits_at_start_is_reported_with_a_reference_to_its_logged_stderr() {
    let (plugin, _engine, _logs, _dir) = launch("exit", quick()).await;
    let err = plugin.err().unwrap();
    let text = err.to_string();
    assert!(matches!(err, PluginError::Startup { .. }), "{text}");
    assert!(text.contains("exited before printing its port"), "{text}");
    // What it printed goes to the server's log, never into a message users see.
    assert!(
        !text.contains("fatal: no credentials configured")
            && text.contains("in the server's log (reference `"),
        "{text}"
    );
}

#[tokio::test]
async fn a_plugin_that_prints_no_port_is_refused() {
    let (plugin, _engine, _logs, _dir) = launch("garbage", quick()).await;
    assert!(plugin
        .err()
        .unwrap()
        .to_string()
        .contains("printed `listening!` where its port number belongs"));
    let (plugin, _engine, _logs, _dir) =
        launch("silent", LaunchOptions { start_timeout: Duration::from_millis(500), ..quick() })
            .await;
    assert!(plugin.err().unwrap().to_string().contains("printed no port within"));
}

#[tokio::test]
async fn a_crash_mid_call_names_the_call_and_logs_stderr() {
    let (plugin, _engine, _logs, _dir) = launch("crash-on-read", quick()).await;
    let err = plugin.unwrap().read(read("boom")).await.unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, PluginError::Crashed { method: "Read", .. }), "{text}");
    assert!(
        !text.contains("exploded") && text.contains("in the server's log (reference `"),
        "{text}"
    );
}

#[tokio::test]
async fn a_hanging_call_hits_its_deadline() {
    let (plugin, _engine, _logs, _dir) = launch(
        "hang-on-read",
        LaunchOptions { call_timeout: Duration::from_millis(700), ..quick() },
    )
    .await;
    let plugin = plugin.unwrap();
    let err = plugin.read(read("slow")).await.unwrap_err();
    assert!(matches!(err, PluginError::Timeout { method: "Read", .. }), "{err}");
    // The plugin still answers other calls.
    assert_eq!(plugin.get_plugin_info().await.unwrap(), "0.0.1");
}

#[test]
fn discovery_order_versions_and_refusals() {
    let ferry = plugin_dir("aws", "ok");
    let on_path = plugin_dir("aws", "ok");
    let cache = tempfile::tempdir().unwrap();
    for v in ["5.1.0", "6.0.2", "6.10.0"] {
        let d = cache.path().join(format!("resource-gcp-v{v}"));
        std::fs::create_dir(&d).unwrap();
        write_wrapper(&d.join("pulumi-resource-gcp"), "ok");
    }
    let search = PluginSearch {
        ferry_dirs: vec![ferry.path().into()],
        path_dirs: vec![on_path.path().into()],
        pulumi_plugins: Some(cache.path().into()),
    };
    assert_eq!(
        search.find("aws", None).unwrap().path,
        ferry.path().join("pulumi-resource-aws"),
        "Ferry's folder first"
    );
    let newest = search.find("gcp", None).unwrap();
    assert_eq!(
        newest.version,
        Some(semver::Version::new(6, 10, 0)),
        "highest version by semver, not by string"
    );
    let exact = search.find("gcp", Some(&semver::Version::new(5, 1, 0))).unwrap();
    assert_eq!(exact.version, Some(semver::Version::new(5, 1, 0)));

    let err = search.find("azure", None).unwrap_err();
    let PluginError::NotFound { looked_in, .. } = &err else { panic!("{err}") };
    assert!(
        looked_in.contains(&cache.path().to_path_buf()),
        "where it looked is kept for the log: {looked_in:?}"
    );
    let shown = err.to_string();
    assert!(
        shown.contains("pulumi-resource-azure")
            && !shown.contains(&cache.path().display().to_string()),
        "the message shows no server folder: {shown}"
    );
    for bad in ["../evil", "a/b", "", "Aws"] {
        assert!(matches!(search.find(bad, None), Err(PluginError::InvalidPackage { .. })), "{bad}");
    }
    // Not executable: not a plugin.
    let plain = tempfile::tempdir().unwrap();
    std::fs::write(plain.path().join("pulumi-resource-x"), "data").unwrap();
    let s = PluginSearch { ferry_dirs: vec![PathBuf::from(plain.path())], ..Default::default() };
    assert!(matches!(s.find("x", None), Err(PluginError::NotFound { .. })));
}

#[tokio::test]
async fn each_provider_resource_gets_its_own_configured_plugin() {
    use ferry_engine::plugin::PluginProviders;
    use ferry_engine::provider::{ProviderInstance, ProviderSource};
    use ferry_property::PropertyValue;
    let dir = plugin_dir("test", "ok");
    let (engine, _logs) = EngineService::start().await.unwrap();
    let providers =
        PluginProviders::new(search(dir.path()), engine, quick(), dir.path().to_path_buf(), None);
    let instance = |key: &str, region: &str| ProviderInstance {
        package: "test".into(),
        version: None,
        key: key.into(),
        config: [("region".to_string(), PropertyValue::String(region.into()))].into(),
    };
    let eu = providers
        .provider(&instance("urn:pulumi:d::p::pulumi:providers:test::eu::1", "eu-west-1"))
        .await
        .unwrap();
    let us = providers
        .provider(&instance("urn:pulumi:d::p::pulumi:providers:test::us::2", "us-east-2"))
        .await
        .unwrap();
    let again = providers
        .provider(&instance("urn:pulumi:d::p::pulumi:providers:test::eu::1", "eu-west-1"))
        .await
        .unwrap();
    assert!(std::sync::Arc::ptr_eq(&eu, &again), "one process per provider resource, shared");
    let region = |r: ferry_rpc::pulumirpc::ReadResponse| {
        let props = r.properties.unwrap();
        let args = match &props.fields["configArgs"].kind {
            Some(Kind::StructValue(s)) => s.clone(),
            _ => panic!(),
        };
        let vars = match &props.fields["configVariables"].kind {
            Some(Kind::StructValue(s)) => s.clone(),
            _ => panic!(),
        };
        (args.fields["region"].kind.clone(), vars.fields["test:config:region"].kind.clone())
    };
    let (args, vars) = region(eu.read(read("a")).await.unwrap());
    assert_eq!(args, Some(Kind::StringValue("eu-west-1".into())));
    assert_eq!(vars, Some(Kind::StringValue("eu-west-1".into())), "older plugins get `variables`");
    assert_eq!(
        region(us.read(read("b")).await.unwrap()).0,
        Some(Kind::StringValue("us-east-2".into()))
    );
    providers.shutdown().await;
}

/// A parameterized package runs on its base plugin, told `Parameterize` before its schema is
/// asked for; a base plugin without `Parameterize` is refused by name.
#[tokio::test]
async fn parameterized_packages_are_parameterized_before_get_schema() {
    use ferry_engine::plugin::{Parameterized, PluginProviders};
    let dir = plugin_dir("test", "ok");
    let (engine, _logs) = EngineService::start().await.unwrap();
    let providers =
        PluginProviders::new(search(dir.path()), engine, quick(), dir.path().to_path_buf(), None);
    let parameterized = Parameterized {
        plugin: "test".into(),
        plugin_version: "0.0.1".into(),
        package_version: "2.0.0".into(),
        value: b"{\"region\":\"x\"}".to_vec(),
    };
    providers.parameterize("acme", parameterized.clone());
    let schema: serde_json::Value =
        serde_json::from_str(&providers.schema("acme", Some("2.0.0")).await.unwrap()).unwrap();
    assert_eq!(schema["name"], "acme");
    assert_eq!(schema["version"], "2.0.0");
    assert_eq!(schema["parameterization"]["baseProvider"]["name"], "test");
    assert_eq!(schema["parameterization"]["parameter"], "eyJyZWdpb24iOiJ4In0=");
    providers.shutdown().await;

    // `legacy` answers nothing but the basics: no Parameterize.
    let dir = plugin_dir("old", "legacy");
    let (engine, _logs) = EngineService::start().await.unwrap();
    let providers =
        PluginProviders::new(search(dir.path()), engine, quick(), dir.path().to_path_buf(), None);
    providers.parameterize("acme", Parameterized { plugin: "old".into(), ..parameterized });
    let err = providers.schema("acme", None).await.unwrap_err().to_string();
    assert!(err.contains("does not answer Parameterize") && err.contains("`acme`"), "{err}");
    providers.shutdown().await;
}

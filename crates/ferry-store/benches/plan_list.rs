//! How long a list of plans takes to read from the store with 10,000 plans in one organisation
//! (a SQLite file, as Ferry keeps by default; `FERRY_BENCH_DATABASE_URL=postgres://…` for a
//! scratch schema in PostgreSQL): the first page of the organisation's list, a page deep in it
//! (by cursor), one state, and `awaiting=me`. Each is the median of 21 reads after one warm-up,
//! the store's query only (the service adds the reading of 50 statuses it kept as JSON). Under
//! `cargo test` (no `--bench`), the test command's smoke: 600 plans, 10 pages in, 3 reads each.

use std::time::{Duration, Instant};

use ferry_store::managed::ManagedChange;
use ferry_store::plan_lifecycle::{Awaiting, ListFilter, PlanState};
use ferry_store::plans::NewPlan;
use ferry_store::{NewVersion, PackedJson, StackName, Store};

const PAGE: usize = 50;

/// The full run's sizes, or the smoke's.
struct Size {
    plans: usize,
    pages_in: usize,
    reads: usize,
}

async fn store(dir: &std::path::Path) -> Store {
    match std::env::var("FERRY_BENCH_DATABASE_URL") {
        Ok(url) if !url.is_empty() => {
            ferry_store::testing::scratch_postgres(&url).await.expect("a scratch schema")
        }
        _ => Store::open(&dir.join("bench.db")).await.expect("a store file"),
    }
}

async fn median(reads: usize, mut read: impl AsyncFnMut() -> usize) -> (Duration, usize) {
    let rows = read().await;
    let mut times = Vec::new();
    for _ in 0..reads {
        let started = Instant::now();
        read().await;
        times.push(started.elapsed());
    }
    times.sort();
    (times[reads / 2], rows)
}

fn main() {
    // `cargo bench` passes `--bench` and gets the full run; `cargo test` passes nothing.
    let size = if std::env::args().any(|a| a == "--bench") {
        Size { plans: 10_000, pages_in: 100, reads: 21 }
    } else {
        Size { plans: 600, pages_in: 10, reads: 3 }
    };
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let dir = tempfile::tempdir().expect("a folder");
        let store = store(dir.path()).await;
        let name = StackName::parse("bench/app/dev").unwrap();
        let export = r#"{"version":3,"deployment":{}}"#;
        let version = NewVersion {
            origin: "upload",
            source_format: "stack export v3",
            resource_count: 0,
            export: PackedJson::pack(export),
            managed: ManagedChange::Unknown,
        };
        let stack = store.stacks().add_version(&name, version).await.unwrap();
        let made = Instant::now();
        let states = PlanState::ALL;
        for i in 0..size.plans {
            let author = format!("author-{}", i % 20);
            let new = NewPlan { stack_id: &stack.id, title: &format!("Import {i}"), author: &author, spec: Some("{}"), options: "{}", ..Default::default() };
            let plan = store.plans().add_plan(new).await.unwrap();
            let state = states[i % states.len()];
            let status = format!(
                r#"{{"state":"{}","revision":1,"preview":null,"approvals":0,"required_approvals":1,"committed_version":null,"closed_by":null}}"#,
                state.as_str()
            );
            store.plans().set_plan_status(&plan.id, state, None, &status, true).await.unwrap();
        }
        println!("plan list: {} plans in one organisation made in {} s", size.plans, made.elapsed().as_secs());

        let orgs = Some(vec!["bench".to_string()]);
        let first = ListFilter { orgs: orgs.clone(), limit: PAGE + 1, ..Default::default() };
        let (took, rows) = median(size.reads, async || store.plans().list_plans(&first).await.unwrap().len()).await;
        assert_eq!(rows, PAGE + 1);
        println!("plan list: first page of {PAGE} in {:.2} ms (median of {})", took.as_secs_f64() * 1000.0, size.reads);

        // Pages in, by the cursor a page gives.
        let mut filter = first.clone();
        for _ in 0..size.pages_in {
            let page = store.plans().list_plans(&filter).await.unwrap();
            let last = &page[PAGE - 1];
            filter.after = Some((last.last_activity_at.clone(), last.id.clone()));
        }
        let (took, rows) = median(size.reads, async || store.plans().list_plans(&filter).await.unwrap().len()).await;
        assert_eq!(rows, PAGE + 1);
        println!("plan list: page {} (by cursor) in {:.2} ms (median of {})", size.pages_in + 1, took.as_secs_f64() * 1000.0, size.reads);

        let previewed = ListFilter { states: vec![PlanState::Previewed], ..first.clone() };
        let (took, rows) = median(size.reads, async || store.plans().list_plans(&previewed).await.unwrap().len()).await;
        assert_eq!(rows, PAGE + 1);
        println!("plan list: first page of one state in {:.2} ms (median of {})", took.as_secs_f64() * 1000.0, size.reads);

        let awaiting = ListFilter { awaiting: Some(Awaiting { reviewer: "reviewer".into(), orgs: orgs.clone() }), ..first.clone() };
        let (took, rows) = median(size.reads, async || store.plans().list_plans(&awaiting).await.unwrap().len()).await;
        assert_eq!(rows, PAGE + 1);
        println!("plan list: first page awaiting a reviewer in {:.2} ms (median of {})", took.as_secs_f64() * 1000.0, size.reads);
    });
}

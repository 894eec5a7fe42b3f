//! The identification table of a program's plan: each resource the program would create, the
//! import ID its type's recipe built from the program (or a person typed into the recipe's
//! parts), what `Read` found under it, and a choice — import, create or skip — saved as the
//! plan's next revision, or downloaded as the mapping file `--mapping` reads.

use std::collections::{BTreeMap, HashMap};

use ferry_types::identify::{
    IdChoice, IdPart, IdentificationChoice, IdentificationChoices, IdentificationRow,
    IdentificationStatus, Identifications,
};
use leptos::prelude::*;

/// What a row's choice starts as: import what was found (unless its ID is secret, which is
/// never written into a program), create the rest.
fn default_choice(row: &IdentificationRow) -> IdChoice {
    match row.status {
        IdentificationStatus::Identified | IdentificationStatus::Differs if !row.attempt.secret => {
            IdChoice::Import
        }
        _ => IdChoice::Create,
    }
}

fn choice_key(c: IdChoice) -> &'static str {
    match c {
        IdChoice::Import => "import",
        IdChoice::Create => "create",
        IdChoice::Skip => "skip",
    }
}

/// The ID a form's fields make, the recipe's literal text between them.
fn compose(parts: &[IdPart], values: &HashMap<String, String>) -> String {
    parts
        .iter()
        .map(|p| match p {
            IdPart::Literal(t) => t.clone(),
            IdPart::Property(n) => values.get(n).cloned().unwrap_or_default(),
        })
        .collect()
}

/// The mapping file: the chosen imports' IDs, blanks for the rest (`--mapping` skips those).
fn mapping_json(
    rows: &[IdentificationRow],
    choices: &HashMap<String, (IdChoice, String)>,
) -> String {
    let mapping: BTreeMap<&str, &str> = rows
        .iter()
        .map(|r| {
            let id = match choices.get(&r.name) {
                Some((IdChoice::Import, id)) if !id.contains("[secret]") => id.as_str(),
                _ => "",
            };
            (r.name.as_str(), id)
        })
        .collect();
    serde_json::to_string_pretty(&mapping).expect("a map serialises") + "\n"
}

/// A `data:` address for a download, every byte but letters and digits escaped.
fn data_url(text: &str) -> String {
    let mut out = String::from("data:application/json;charset=utf-8,");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[component]
pub(super) fn IdentifyPanel(plan_id: String, stack_id: String, revision: i64) -> impl IntoView {
    let found = RwSignal::new(None::<Identifications>);
    // Each row's choice and the ID it imports with, by resource name.
    let choices = RwSignal::new(HashMap::<String, (IdChoice, String)>::new());
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    // The running job: its ID (to cancel it), the resources done of its total.
    let job = RwSignal::new(None::<String>);
    let progress = RwSignal::new((0usize, 0usize));
    // The rows the running job has reported so far.
    let arriving = StoredValue::new(Vec::<IdentificationRow>::new());
    let identify = ferry_types::api::START_IDENTIFICATION.at(&[&stack_id]);
    let revision = ferry_types::api::PLAN_REVISION.at(&[&plan_id, &revision.to_string()]);
    // The job's table, shown: all of it, or only the rows `only` names (a form's Try), each
    // with its default choice.
    let show = move |answer: Identifications, only: Vec<String>| {
        let merged = match (found.get_untracked(), only.is_empty()) {
            (Some(before), false) => {
                let rows = before
                    .rows
                    .into_iter()
                    .map(|r| {
                        if only.contains(&r.name) {
                            answer.rows.iter().find(|a| a.name == r.name).cloned().unwrap_or(r)
                        } else {
                            r
                        }
                    })
                    .collect();
                Identifications::new(rows)
            }
            _ => answer,
        };
        choices.update(|c| {
            for r in &merged.rows {
                if only.is_empty() || only.contains(&r.name) {
                    c.insert(r.name.clone(), (default_choice(r), r.id.clone().unwrap_or_default()));
                }
            }
        });
        found.set(Some(merged));
    };
    // Runs identification of the saved revision's program as a job, followed as it reads;
    // `typed` IDs are tried instead of the recipes' (the form's Try), and only those rows change.
    let run = Callback::new(move |typed: BTreeMap<String, String>| {
        let (_identify, _revision) = (identify.clone(), revision.clone());
        busy.set(true);
        problem.set(None);
        progress.set((0, 0));
        arriving.set_value(Vec::new());
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            use ferry_types::identify::{IdentificationEvent, IdentificationJob};
            let started = async {
                let plan = crate::client::call(&_revision).await?;
                let program = plan.current.program.ok_or("this revision has no program")?;
                let asked = ferry_types::identify::IdentifyRequest { program, ids: typed.clone() };
                crate::client::send(&_identify, &asked).await
            };
            let started = match started.await {
                Ok(started) => started,
                Err(e) => {
                    busy.set(false);
                    return problem.set(Some(e));
                }
            };
            let only: Vec<String> = typed.keys().cloned().collect();
            job.set(Some(started.id.clone()));
            progress.set((0, started.total));
            crate::browser::watch_events(
                &ferry_types::api::IDENTIFICATION_EVENTS.url(&[&started.id]),
                "identification",
                move |e: IdentificationEvent| match e {
                    IdentificationEvent::Resource { .. } => {
                        progress.update(|(done, total)| *done = (*done + 1).min(*total))
                    }
                    IdentificationEvent::Row(row) => arriving.update_value(|rows| rows.push(row)),
                },
                move |end: IdentificationJob| {
                    job.set(None);
                    busy.set(false);
                    match end.status {
                        ferry_types::JobStatus::Done => {
                            show(Identifications::new(arriving.get_value()), only.clone())
                        }
                        status => problem.set(Some(end.error.unwrap_or_else(|| {
                            format!("the identification was {}", status.as_str())
                        }))),
                    }
                },
            );
        });
        #[cfg(not(feature = "hydrate"))]
        let _ = (typed, show);
    });
    let cancel = move |_| {
        let Some(_id) = job.get_untracked() else { return };
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let call = ferry_types::api::CANCEL_IDENTIFICATION.at(&[&_id]);
            if let Err(e) = crate::client::call(&call).await {
                problem.set(Some(e));
            }
        });
    };
    let save = move |_| {
        let Some(f) = found.get_untracked() else { return };
        let chosen = choices.get_untracked();
        let body = IdentificationChoices {
            choices: f
                .rows
                .iter()
                .map(|r| {
                    let (choice, id) =
                        chosen.get(&r.name).cloned().unwrap_or((default_choice(r), String::new()));
                    IdentificationChoice {
                        name: r.name.clone(),
                        choice,
                        id: (choice == IdChoice::Import).then_some(id),
                    }
                })
                .collect(),
        };
        let _plan = plan_id.clone();
        busy.set(true);
        problem.set(None);
        #[cfg(not(feature = "hydrate"))]
        let _ = body;
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let call = ferry_types::api::CHOOSE_IDENTIFICATIONS.at(&[&_plan]);
            match crate::client::send(&call, &body).await {
                Ok(_) => crate::browser::go_to(&format!("/plans/{_plan}")),
                Err(e) => {
                    busy.set(false);
                    problem.set(Some(e));
                }
            }
        });
    };
    let mapping_href = move || {
        found.with(|f| f.as_ref().map(|f| data_url(&mapping_json(&f.rows, &choices.get()))))
    };
    view! {
        <section class="card identify" id="identify">
            <h2>"Identify existing resources"</h2>
            <p class="meta">
                "Each resource the program would create is tried as an import: its import ID is built from its type's recipe and the program's values, "
                "and the provider's Read says whether it exists. Nothing is stored or changed until you save your choices and commit."
            </p>
            <p>
                <button id="identify-run" disabled=move || busy.get() on:click=move |_| run.run(BTreeMap::new())>
                    {move || if found.with(Option::is_some) { "Identify again" } else { "Identify" }}
                </button>
            </p>
            {move || busy.get().then(|| {
                let (done, total) = progress.get();
                let said = if total == 0 { "Reading the resources…".to_string() } else { format!("Read {done} of {total} resources…") };
                view! {
                    <p class="meta" id="identify-busy" role="status">
                        <progress id="identify-progress" max=total.max(1) value=done></progress>
                        " " {said} " "
                        {job.get().map(|_| view! { <button class="small secondary" id="identify-cancel" on:click=cancel>"Cancel"</button> })}
                    </p>
                }
            })}
            {move || problem.get().map(|p| view! { <p class="error" id="identify-problem" role="alert">{p}</p> })}
            {move || found.get().map(|f| {
                let summary = format!("{} identified, {} found with differences, {} unidentified, {} failed.", f.identified, f.differs, f.unidentified, f.failed);
                view! {
                    <p id="identify-summary" role="status">{summary}</p>
                    <table class="results identify-table" id="identify-table">
                        <thead><tr><th>"Type"</th><th>"Name"</th><th>"ID"</th><th>"Read"</th><th>"Choice"</th></tr></thead>
                        <tbody>
                            {f.rows.into_iter().map(|r| view! { <IdentifyRow row=r choices=choices busy=busy run=run/> }).collect_view()}
                        </tbody>
                    </table>
                    <p class="actions">
                        <button id="identify-save" disabled=move || busy.get() on:click=save.clone()>"Save choices as the next revision"</button>
                        " "
                        <a id="identify-mapping" class="button secondary" download="mapping.json" href=mapping_href>"Download the mapping"</a>
                    </p>
                }
            })}
        </section>
    }
}

/// One would-be create: its ID and where it came from, what Read found, the choice, and for an
/// unidentified one a form with the recipe's parts (or one ID field when there is no recipe).
#[component]
fn IdentifyRow(
    row: IdentificationRow,
    choices: RwSignal<HashMap<String, (IdChoice, String)>>,
    busy: RwSignal<bool>,
    run: Callback<BTreeMap<String, String>>,
) -> impl IntoView {
    let name = row.name.clone();
    let source = match (row.attempt.source, &row.attempt.recipe) {
        (Some(ferry_types::identify::IdSource::Recipe), Some(recipe)) => format!("recipe {recipe}"),
        (Some(s), _) => format!("{s:?}").to_lowercase(),
        (None, _) => String::new(),
    };
    let status = row.status.as_str();
    let found =
        matches!(row.status, IdentificationStatus::Identified | IdentificationStatus::Differs);
    // The form's fields, filled from the program where it sets them.
    let fields = RwSignal::new(
        row.attempt
            .parts
            .iter()
            .filter_map(|p| {
                Some((p.property.clone(), p.value.clone().filter(|v| v != "[secret]")?))
            })
            .collect::<HashMap<_, _>>(),
    );
    let typed_id = RwSignal::new(String::new());
    let recipe_parts = row.attempt.recipe_parts.clone();
    let try_it = {
        let (name, parts) = (name.clone(), recipe_parts.clone());
        move |_| {
            let id = if parts.is_empty() {
                typed_id.get_untracked()
            } else {
                compose(&parts, &fields.get_untracked())
            };
            if !id.trim().is_empty() {
                run.run(BTreeMap::from([(name.clone(), id.trim().to_string())]));
            }
        }
    };
    let set_choice = {
        let name = name.clone();
        move |ev: leptos::ev::Event| {
            let choice = match event_target_value(&ev).as_str() {
                "import" => IdChoice::Import,
                "skip" => IdChoice::Skip,
                _ => IdChoice::Create,
            };
            choices.update(|c| c.entry(name.clone()).or_insert((choice, String::new())).0 = choice);
        }
    };
    let current = {
        let name = name.clone();
        move || choices.with(|c| c.get(&name).map(|(c, _)| *c).unwrap_or(IdChoice::Create))
    };
    let label = format!("What to do with {}", row.name);
    view! {
        <tr data-name=row.name.clone() data-status=status class=format!("identify-{status}")>
            <td class="type">{row.type_.clone()}</td>
            <td class="name">{row.name.clone()}</td>
            <td class="id">
                {row.id.clone().map(|id| view! { <code class="identify-id">{id}</code> })}
                <span class="meta identify-source">{source}</span>
            </td>
            <td class="read">
                <span class=format!("status {status}")>{status}</span>
                {row.attempt.reason.clone().map(|r| view! { <span class="meta identify-reason">{r}</span> })}
                {(!row.differences.is_empty()).then(|| view! {
                    <ul class="identify-differences">
                        {row.differences.iter().map(|d| {
                            let show = |v: &Option<serde_json::Value>| v.as_ref().map_or("(unset)".to_string(), |v| v.to_string());
                            view! { <li><code>{d.path.clone()}</code>": program " <code>{show(&d.program)}</code> ", read " <code>{show(&d.read)}</code></li> }
                        }).collect_view()}
                    </ul>
                })}
                {(!found).then(|| view! {
                    <div class="identify-form">
                        {if recipe_parts.is_empty() {
                            view! {
                                <label>"ID "<input class="identify-part" data-property="id" prop:value=move || typed_id.get()
                                    on:input=move |ev| typed_id.set(event_target_value(&ev))/></label>
                            }.into_any()
                        } else {
                            recipe_parts.iter().map(|p| match p {
                                IdPart::Literal(t) => view! { <code class="identify-literal">{t.clone()}</code> }.into_any(),
                                IdPart::Property(n) => {
                                    let (n, m) = (n.clone(), n.clone());
                                    view! {
                                        <input class="identify-part" data-property=n.clone() placeholder=n.clone() aria-label=n.clone()
                                            prop:value=move || fields.with(|f| f.get(&n).cloned().unwrap_or_default())
                                            on:input=move |ev| { let v = event_target_value(&ev); fields.update(|f| { f.insert(m.clone(), v); }); }/>
                                    }.into_any()
                                }
                            }).collect_view().into_any()
                        }}
                        " "
                        <button class="small identify-try" disabled=move || busy.get() on:click=try_it.clone()>"Try"</button>
                    </div>
                })}
            </td>
            <td class="choice">
                <select class="identify-choice" aria-label=label on:change=set_choice>
                    {[IdChoice::Import, IdChoice::Create, IdChoice::Skip].into_iter().map(|c| {
                        let current = current.clone();
                        // An ID holding a secret is never written into the program.
                        let disabled = c == IdChoice::Import && (!found || row.attempt.secret);
                        view! { <option value=choice_key(c) selected=move || current() == c disabled=disabled>{choice_key(c)}</option> }
                    }).collect_view()}
                </select>
            </td>
        </tr>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mapping_holds_the_chosen_imports_only() {
        let row = |name: &str| IdentificationRow {
            type_: "t".into(),
            name: name.into(),
            urn: String::new(),
            id: Some("x".into()),
            status: IdentificationStatus::Identified,
            differences: vec![],
            attempt: Default::default(),
            line: None,
        };
        let choices = HashMap::from([
            ("a".to_string(), (IdChoice::Import, "1,2,3".to_string())),
            ("b".to_string(), (IdChoice::Create, "9".to_string())),
        ]);
        let json: BTreeMap<String, String> =
            serde_json::from_str(&mapping_json(&[row("a"), row("b")], &choices)).unwrap();
        assert_eq!(
            json,
            BTreeMap::from([
                ("a".to_string(), "1,2,3".to_string()),
                ("b".to_string(), String::new())
            ])
        );
        assert_eq!(
            compose(
                &[IdPart::Property("a".into()), IdPart::Literal(",".into())],
                &HashMap::from([("a".into(), "1".into())])
            ),
            "1,"
        );
        assert!(data_url("{\"a\": 1}").ends_with("%7B%22a%22%3A%201%7D"));
    }
}

//! The stack's Discover view: which resource types its providers can list (each with a form for
//! its `listInputs` filter), a discovery whose results stream in with Cancel, each result's
//! status (managed here, in another stack, or not), a quick `Read` for importability, and the
//! selection added to a new or existing plan.

#[cfg(feature = "hydrate")]
use ferry_types::api;
use ferry_types::api::{DiscoveredToPlan, ProbeRequest};
use ferry_types::discovery::{Discovered, Listables, Managed};
#[cfg(feature = "hydrate")]
use ferry_types::discovery::{DiscoveryEvent, DiscoveryView};
use ferry_types::discovery::{DiscoveryRequest, ProbeItem, Selected, TypeQuery};
use leptos::prelude::*;
use serde_json::Value;

/// One result row: the discovery event, and the probe's outcome once asked.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Found {
    type_: String,
    id: String,
    name: String,
    status: String,
    /// Where it is managed: (link, label).
    managed_at: Option<(String, String)>,
    importable: Option<String>,
}

impl Found {
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    fn from_result(d: Discovered, stack_id: &str) -> Found {
        let (status, managed_at) = match d.managed {
            Managed::InThisStack { urn } => (
                "in-this-stack",
                Some((
                    format!("/stacks/{stack_id}?r={}", urlencode(&urn)),
                    "this stack".to_string(),
                )),
            ),
            Managed::InOtherStack { stack_id, stack, urn } => (
                "in-other-stack",
                Some((format!("/stacks/{stack_id}?r={}", urlencode(&urn)), stack)),
            ),
            Managed::Unmanaged => ("unmanaged", None),
        };
        Found {
            type_: d.type_,
            id: d.id,
            name: d.name,
            status: status.to_string(),
            managed_at,
            importable: None,
        }
    }
}

#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[component]
pub(crate) fn DiscoverPanel(stack_id: String) -> impl IntoView {
    let types = RwSignal::new(None::<Listables>);
    let problem = RwSignal::new(None::<String>);
    let chosen = RwSignal::new(std::collections::BTreeSet::<String>::new());
    // Filter values by "type\u{0}property".
    let filters = RwSignal::new(std::collections::BTreeMap::<String, String>::new());
    let limit = RwSignal::new(String::new());
    let results = RwSignal::new(Vec::<Found>::new());
    let notes = RwSignal::new(Vec::<String>::new());
    let job = RwSignal::new(None::<String>);
    let running = RwSignal::new(false);
    let selection = RwSignal::new(std::collections::BTreeSet::<usize>::new());
    let plan_id = RwSignal::new(String::new());

    #[cfg(feature = "hydrate")]
    {
        let stack_id = stack_id.clone();
        Effect::new(move |_| {
            let stack_id = stack_id.clone();
            leptos::task::spawn_local(async move {
                match crate::client::call(&api::LISTABLE_TYPES.at(&[&stack_id])).await {
                    Ok(t) => types.set(Some(t)),
                    Err(e) => problem.set(Some(e)),
                }
            });
        });
    }

    let start = {
        let stack_id = stack_id.clone();
        move |_| {
            let picked: Vec<String> = chosen.get_untracked().into_iter().collect();
            if picked.is_empty() {
                problem.set(Some("choose at least one resource type".into()));
                return;
            }
            let all_filters = filters.get_untracked();
            let limit = limit.get_untracked().trim().parse::<i64>().ok();
            let types: Vec<TypeQuery> = picked
                .iter()
                .map(|t| {
                    let query: serde_json::Map<String, Value> = all_filters
                        .iter()
                        .filter_map(|(k, v)| {
                            k.split_once('\u{0}')
                                .filter(|(ty, _)| ty == t)
                                .map(|(_, p)| (p.to_string(), v.clone()))
                        })
                        .filter(|(_, v)| !v.trim().is_empty())
                        .map(|(k, v)| (k, Value::String(v)))
                        .collect();
                    TypeQuery { type_: t.clone(), query, limit, page_size: None }
                })
                .collect();
            let _asked = DiscoveryRequest { types };
            let _stack_id = stack_id.clone();
            problem.set(None);
            results.set(Vec::new());
            notes.set(Vec::new());
            selection.set(Default::default());
            running.set(true);
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                match crate::client::send(&api::START_DISCOVERY.at(&[&_stack_id]), &_asked).await {
                    Ok(view) => {
                        let id = view.id;
                        job.set(Some(id.clone()));
                        let stack_for_rows = _stack_id.clone();
                        crate::browser::watch_events(
                            &api::DISCOVERY_EVENTS.url(&[&id]),
                            "discovery",
                            move |e: DiscoveryEvent| match e {
                                DiscoveryEvent::Result(found) => results
                                    .update(|r| r.push(Found::from_result(found, &stack_for_rows))),
                                DiscoveryEvent::NotListable { type_, message }
                                | DiscoveryEvent::Failed { type_, message } => {
                                    notes.update(|n| n.push(format!("{type_}: {message}")))
                                }
                                DiscoveryEvent::Computed { type_ } => notes.update(|n| {
                                    n.push(format!("{type_}: the query holds unknown values"))
                                }),
                                DiscoveryEvent::Page { .. } => {}
                            },
                            move |end: DiscoveryView| {
                                running.set(false);
                                if let Some(e) = end.error {
                                    problem.set(Some(e));
                                }
                                if end.status == ferry_types::JobStatus::Cancelled {
                                    notes.update(|n| n.push("cancelled".into()));
                                }
                            },
                        );
                    }
                    Err(e) => {
                        running.set(false);
                        problem.set(Some(e));
                    }
                }
            });
        }
    };
    let cancel = move |_| {
        let Some(_id) = job.get_untracked() else { return };
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            if let Err(e) = crate::client::call(&api::CANCEL_DISCOVERY.at(&[&_id])).await {
                problem.set(Some(e));
            }
        });
    };
    // The selection, or (when nothing is ticked) every unmanaged result.
    let picked = move || -> Vec<usize> {
        let s = selection.get_untracked();
        if s.is_empty() {
            results.with_untracked(|r| {
                r.iter()
                    .enumerate()
                    .filter(|(_, f)| f.status == "unmanaged")
                    .map(|(i, _)| i)
                    .collect()
            })
        } else {
            s.into_iter().collect()
        }
    };
    let probe = {
        let stack_id = stack_id.clone();
        move |_| {
            let rows = picked();
            let items: Vec<ProbeItem> = results.with_untracked(|r| {
                rows.iter()
                    .filter_map(|i| r.get(*i))
                    .map(|f| ProbeItem { type_: f.type_.clone(), id: f.id.clone() })
                    .collect()
            });
            let (_asked, _stack_id) = (ProbeRequest { items }, stack_id.clone());
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                match crate::client::send(&api::PROBE.at(&[&_stack_id]), &_asked).await {
                    Ok(outcomes) => results.update(|r| {
                        for (i, o) in rows.iter().zip(outcomes) {
                            if let Some(f) = r.get_mut(*i) {
                                let text = o.outcome.as_str();
                                f.importable = Some(match o.message {
                                    Some(m) => format!("{text}: {m}"),
                                    None => text.to_string(),
                                });
                            }
                        }
                    }),
                    Err(e) => problem.set(Some(e)),
                }
            });
        }
    };
    let to_plan = {
        let stack_id = stack_id.clone();
        move |_| {
            let rows = picked();
            let items: Vec<Selected> = results.with_untracked(|r| {
                rows.iter()
                    .filter_map(|i| r.get(*i))
                    .map(|f| Selected {
                        type_: f.type_.clone(),
                        id: f.id.clone(),
                        name: f.name.clone(),
                    })
                    .collect()
            });
            let existing = plan_id.get_untracked().trim().to_string();
            let _asked =
                DiscoveredToPlan { items, plan_id: Some(existing).filter(|p| !p.is_empty()) };
            let _stack_id = stack_id.clone();
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                let call = api::DISCOVERED_TO_PLAN.at(&[&_stack_id]);
                match crate::client::send(&call, &_asked).await {
                    Ok(plan) => crate::browser::go_to(&format!("/plans/{}", plan.plan.id)),
                    Err(e) => problem.set(Some(e)),
                }
            });
        }
    };

    let type_rows = move || {
        types.get().map(|t| {
            let Listables { types: listable, packages_without_list: without } = t;
            view! {
                <table class="discover-types" id="discover-types">
                    <thead><tr><th></th><th>"Type"</th><th>"Filter (listInputs)"</th></tr></thead>
                    <tbody>
                        {listable.into_iter().map(|ty| {
                            let token = ty.type_;
                            let props: Vec<String> = ty.list_inputs.properties.keys().cloned().collect();
                            let t1 = token.clone();
                            view! {
                                <tr data-type=token.clone()>
                                    <td><input type="checkbox" class="pick-type" aria-label=format!("List {token}") on:change=move |ev| {
                                        let on = event_target_checked(&ev);
                                        chosen.update(|c| { if on { c.insert(t1.clone()); } else { c.remove(&t1); } });
                                    }/></td>
                                    <td class="mono">{token.clone()}</td>
                                    <td>{props.into_iter().map(|p| {
                                        let key = format!("{token}\u{0}{p}");
                                        view! { <label class="filter">{p.clone()}" "<input type="text" data-filter=p.clone() on:input=move |ev| {
                                            let v = event_target_value(&ev);
                                            let key = key.clone();
                                            filters.update(|f| { f.insert(key, v); });
                                        }/></label> }
                                    }).collect_view()}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
                {(!without.is_empty()).then(|| view! {
                    <ul class="meta" id="discover-unlistable">
                        {without.into_iter().map(|p| view! { <li>{format!("{}: no List ({})", p.package, p.reason)}</li> }).collect_view()}
                    </ul>
                })}
            }
        })
    };

    view! {
        <section class="card discover" id="discover">
            <h2>"Discover resources to import"</h2>
            <p class="meta">"Lists what the stack's providers (and the installed plugins) find, and whether a stack already manages it. Nothing is written until a plan is committed."</p>
            {move || if types.with(Option::is_none) && problem.with(Option::is_none) { Some(view! { <p>"Asking the providers what they can list…"</p> }) } else { None }}
            {type_rows}
            <div class="actions">
                <label>"Limit per type "<input type="number" min="1" id="discover-limit" on:input=move |ev| limit.set(event_target_value(&ev))/></label>
                <button id="discover-start" on:click=start disabled=move || running.get()>"Discover"</button>
                <button id="discover-cancel" class="secondary" on:click=cancel disabled=move || !running.get()>"Cancel"</button>
                <span class="meta" id="discover-progress">{move || {
                    let n = results.with(Vec::len);
                    if running.get() { format!("{n} found so far…") } else if job.with(Option::is_some) { format!("{n} found") } else { String::new() }
                }}</span>
            </div>
            {move || problem.get().map(|p| view! { <p class="error" id="discover-error">{p}</p> })}
            <ul class="meta" id="discover-notes">{move || notes.get().into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
            <table class="discover-results" id="discover-results">
                <thead><tr><th></th><th>"Type"</th><th>"ID"</th><th>"Name"</th><th>"Status"</th><th>"Importable"</th></tr></thead>
                <tbody>
                    {move || results.get().into_iter().enumerate().map(|(i, f)| {
                        let status = match &f.managed_at {
                            Some((href, label)) => view! { <a href=href.clone()>{format!("managed in {label}")}</a> }.into_any(),
                            None => view! { <span>"unmanaged"</span> }.into_any(),
                        };
                        view! {
                            <tr class="found" data-status=f.status.clone() data-id=f.id.clone()>
                                <td><input type="checkbox" class="pick-result" aria-label=format!("Pick {}", f.id) prop:checked=move || selection.with(|s| s.contains(&i)) on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    selection.update(|s| { if on { s.insert(i); } else { s.remove(&i); } });
                                }/></td>
                                <td class="mono">{f.type_.clone()}</td>
                                <td class="mono">{f.id.clone()}</td>
                                <td>{f.name.clone()}</td>
                                <td class="status">{status}</td>
                                <td class="importable">{f.importable.clone().unwrap_or_default()}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            <div class="actions">
                <button id="discover-probe" class="secondary" on:click=probe disabled=move || results.with(Vec::is_empty)>"Check importability"</button>
                <label>"Existing plan ID (optional) "<input type="text" id="discover-plan-id" on:input=move |ev| plan_id.set(event_target_value(&ev))/></label>
                <button id="discover-to-plan" on:click=to_plan disabled=move || results.with(Vec::is_empty)>"Add to plan"</button>
                <span class="meta">"Ticked results, or every unmanaged one when none is ticked."</span>
            </div>
        </section>
    }
}

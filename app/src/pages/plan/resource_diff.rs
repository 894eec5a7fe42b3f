//! One resource's diff: a Monaco diff of the inputs Read returned against the program's
//! (or spec's), Check failures and warnings, and for every property its values, where each came
//! from and why it differs, with one-click resolutions that write the plan's next revision and
//! preview it again.

use ferry_types::api::{ResolutionInput, ZeroValuesInput};
use ferry_types::{
    DiffKind, PlanAccess, PreviewRef, PropertyResult, Resolution, ResolutionAction, ResultDetail,
    SourceKind,
};
use leptos::prelude::*;

use super::diff_view::DiffView;

/// Resolutions, with their labels and what they do.
const PROGRAM_ACTIONS: &[(ResolutionAction, &str, &str)] = &[
    (ResolutionAction::Adopt, "Adopt read value", "Write the value Read returned into the program"),
    (
        ResolutionAction::Keep,
        "Keep program value",
        "Keep the program's value (an import that still differs cannot commit)",
    ),
    (
        ResolutionAction::Ignore,
        "Add to ignoreChanges",
        "Add the property to the resource's ignoreChanges",
    ),
    (ResolutionAction::Omit, "Leave out", "Remove the property from the program"),
];
const SPEC_ACTIONS: &[(ResolutionAction, &str, &str)] = &[
    (
        ResolutionAction::Adopt,
        "Adopt read value",
        "Keep the value Read returned in the generated code",
    ),
    (
        ResolutionAction::Omit,
        "Leave out",
        "Leave the property out of the generated code (the spec's `properties`)",
    ),
];

/// What a resolution button sends: one property's resolution, or every zero value and default
/// of the resource adopted.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
enum Resolve {
    One(ResolutionInput),
    ZeroValues(ZeroValuesInput),
}

fn show(v: &Option<serde_json::Value>) -> String {
    v.as_ref().map(|v| v.to_string()).unwrap_or_else(|| "—".into())
}

/// `plan_id` is set when the viewer may resolve (the owner, on the latest revision, with the
/// latest preview).
#[component]
pub(super) fn DiffPanel(
    preview: PreviewRef,
    urn: String,
    plan_id: Option<String>,
    access: PlanAccess,
    /// The reviewer's viewed marks (a tick beside the name).
    marks: super::workspace::ViewedMarks,
    on_close: Callback<()>,
) -> impl IntoView {
    // Equal properties are folded until asked for: a reviewer's eye goes to what differs.
    let show_equal = RwSignal::new(false);
    let viewed_urn = urn.clone();
    let _result = preview.result(&urn);
    let detail = RwSignal::new(None::<Result<ResultDetail, String>>);
    let problem = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    #[cfg(feature = "hydrate")]
    leptos::task::spawn_local(async move {
        detail.set(Some(crate::client::call(&_result).await));
    });
    let can_resolve = plan_id.is_some();
    let preview_id = match &preview {
        PreviewRef::Owner { preview } => Some(preview.clone()),
        PreviewRef::Shared { .. } => None,
    };
    // A resolution writes the plan's next revision; its page follows the preview the
    // resolution started.
    let post = move |_body: Resolve| {
        let Some(_plan) = plan_id.clone() else { return };
        busy.set(true);
        problem.set(None);
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let revised = match _body {
                Resolve::One(input) => {
                    crate::client::send(&ferry_types::api::RESOLVE.at(&[&_plan]), &input).await
                }
                Resolve::ZeroValues(input) => {
                    crate::client::send(&ferry_types::api::ADOPT_ZERO_VALUES.at(&[&_plan]), &input)
                        .await
                }
            };
            match revised {
                Ok(_) => crate::browser::go_to(&format!("/plans/{_plan}")),
                Err(e) => {
                    busy.set(false);
                    problem.set(Some(e));
                }
            }
        });
    };
    let resolve = {
        let (urn, preview_id, post) = (urn.clone(), preview_id.clone(), post.clone());
        move |property: String, action: ResolutionAction| {
            let Some(preview) = preview_id.clone() else { return };
            let resolution = Resolution { urn: urn.clone(), property, action };
            post(Resolve::One(ResolutionInput { preview, resolution }));
        }
    };
    let adopt_zero = move || {
        let Some(preview) = preview_id.clone() else { return };
        post(Resolve::ZeroValues(ZeroValuesInput { preview, urn: Some(urn.clone()) }));
    };
    view! {
        <section class="card review" id="review-panel">
            {move || match detail.get() {
                None => view! { <p class="loading">"Loading the resource…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="error">{e}</p> }.into_any(),
                Some(Ok(d)) => {
                    let actions = if d.source_kind == SourceKind::Program { PROGRAM_ACTIONS } else { SPEC_ACTIONS };
                    let resolve = resolve.clone();
                    let adopt_zero = adopt_zero.clone();
                    let zero = d.row.zero_or_default;
                    let equal = d.properties.iter().filter(|p| p.kind == DiffKind::None && p.decision.is_none()).count();
                    let is_spec = d.source_kind == SourceKind::Spec;
                    let viewed_urn = viewed_urn.clone();
                    view! {
                        <div class="review-head">
                            <h2 id="review-name">{d.row.name.clone()}</h2>
                            <span class=format!("badge status-{}", d.row.status)>{d.row.status.as_str()}</span>
                            {move || marks.enabled().then(|| {
                                let (on, set) = (viewed_urn.clone(), viewed_urn.clone());
                                view! {
                                    <label class="viewed-toggle"><input type="checkbox" id="review-viewed" prop:checked=move || marks.is_viewed(&on)
                                        on:change=move |ev| marks.set(set.clone(), event_target_checked(&ev))/>" Viewed"</label>
                                }
                            })}
                            <button class="secondary close" on:click=move |_| on_close.run(())>"Close"</button>
                        </div>
                        <p class="meta">
                            {d.row.type_.clone()}
                            {d.import_id.clone().map(|i| format!(" · import ID {i}"))}
                            {d.id.clone().filter(|id| Some(id) != d.import_id.as_ref()).map(|i| format!(" · ID {i}"))}
                        </p>
                        {(!d.row.warnings.is_empty()).then(|| view! {
                            <ul class="warnings" id="review-warnings">{d.row.warnings.iter().map(|w| view! { <li>{w.clone()}</li> }).collect_view()}</ul>
                        })}
                        {(!d.check_failures.is_empty()).then(|| view! {
                            <div id="review-check-failures"><h3>"Check failures"</h3>
                            <ul class="warnings">{d.check_failures.iter().map(|w| view! { <li>{w.clone()}</li> }).collect_view()}</ul></div>
                        })}
                        <div class="diff-labels"><span>"Read returned"</span><span>{if d.source_kind == SourceKind::Program { "The program" } else { "The generated code (from the spec)" }}</span></div>
                        <DiffView original=d.read_inputs.clone() modified=d.program_inputs.clone()/>
                        {(zero > 0).then(|| view! {
                            <p class="meta" id="review-zero-values">
                                {format!("{zero} of {} differences are only zero values Read returned or defaults the provider filled in.", d.row.differs.len())}
                                " "
                                {can_resolve.then(|| view! {
                                    <button class="small" id="review-adopt-zero" disabled=move || busy.get()
                                        title="Write each of them into the program as Read returned it, in one revision"
                                        on:click=move |_| adopt_zero()>{format!("Adopt all {zero}")}</button>
                                })}
                            </p>
                        })}
                        {move || problem.get().map(|p| view! { <p class="error" id="review-problem">{p}</p> })}
                        <table class="results" id="review-properties">
                            <thead><tr><th>"Property"</th><th>"Read"</th><th>{if d.source_kind == SourceKind::Program { "Program" } else { "Code" }}</th><th>"Change"</th><th>"Cause"</th><th>"Source"</th><th><span class="sr-only">"Resolve"</span></th></tr></thead>
                            <tbody>
                                {d.properties.iter().map(|p: &PropertyResult| {
                                    let property = p.path.clone();
                                    let resolve = resolve.clone();
                                    let differs = p.kind != DiffKind::None;
                                    // A spec's properties all equal what Read returned; leaving one out is
                                    // still a choice on each.
                                    let offers = can_resolve && (differs || is_spec);
                                    let menu_label = format!("Resolve {}", p.path);
                                    // Folded when equal, unless someone decided something about it.
                                    let folds = !differs && p.decision.is_none();
                                    // Why, on a line of its own under the row: a column of it was too
                                    // narrow to read beside the two values.
                                    let why = p.why.clone();
                                    view! {
                                        <tr class:differs=differs class:equal=!differs data-property=p.path.clone() hidden=move || folds && !show_equal.get()>
                                            <td class="prop">{p.path.clone()}</td>
                                            <td><code>{show(&p.read)}</code></td>
                                            <td><code>{show(&p.program)}</code></td>
                                            <td class="kind">{p.kind.as_str()}</td>
                                            <td class="cause">{p.cause.as_str()}</td>
                                            <td class="source">{p.source.clone()}{p.decision.map(|d| format!(" ({d})"))}</td>
                                            <td class="resolve">
                                                {offers.then(|| view! {
                                                    <details class="row-menu">
                                                        <summary aria-label=menu_label.clone() title=menu_label.clone()>"Resolve"</summary>
                                                        <div class="menu">
                                                            {actions.iter().map(|(action, label, title)| {
                                                                let (resolve, property) = (resolve.clone(), property.clone());
                                                                view! {
                                                                    <button class="small" data-action=action.as_str() title=*title disabled=move || busy.get()
                                                                        on:click=move |_| resolve(property.clone(), *action)>{*label}</button>
                                                                }
                                                            }).collect_view()}
                                                        </div>
                                                    </details>
                                                })}
                                            </td>
                                        </tr>
                                        <tr class="why-row" hidden=move || folds && !show_equal.get()>
                                            <td colspan="7" class="why">{why}</td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                        {(equal > 0).then(|| view! {
                            <button class="secondary small" id="review-show-equal" aria-controls="review-properties" aria-expanded=move || show_equal.get().to_string()
                                on:click=move |_| show_equal.update(|s| *s = !*s)>
                                {move || if show_equal.get() { format!("Fold the {equal} equal properties") } else { format!("Show the {equal} equal properties") }}
                            </button>
                        })}
                        <super::discussion::Comments access=access.clone() urn=d.row.urn.clone() properties=d.properties.iter().map(|p| p.path.clone()).collect()/>
                    }.into_any()
                }
            }}
        </section>
    }
}

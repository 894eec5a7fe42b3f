//! A plan's source: the spec's or program's editor, its problems, saving a revision, and the
//! plan's options beside it.

use ferry_types::api::{Call, NoBody};
use ferry_types::plans::{PlanInput, PlanOptions, PlanView};
use ferry_types::{EditorMarker, SourceHead};
use leptos::prelude::*;

use super::editor::{SourceEditor, SourceKind};
use super::options::PlanOptionsForm;

/// What is being edited: each source's text and what was saved of it, their problems, and the
/// options. Signals, so the rest of the page can tell unsaved changes (a preview runs a saved
/// revision).
#[derive(Clone, Copy)]
pub(super) struct Draft {
    spec_text: RwSignal<String>,
    program_text: RwSignal<String>,
    /// The saved text, once the editor has fetched the whole of it (the page carries a
    /// screenful): until then there is nothing to compare or save.
    spec_saved: RwSignal<Option<String>>,
    program_saved: RwSignal<Option<String>>,
    spec_markers: RwSignal<Vec<EditorMarker>>,
    program_markers: RwSignal<Vec<EditorMarker>>,
    pub(super) options: RwSignal<PlanOptions>,
    loaded: Memo<bool>,
    errors: Memo<usize>,
    /// Whether anything differs from the saved revision.
    pub(super) changed: Memo<bool>,
}

impl Draft {
    pub(super) fn new(
        spec: Option<&SourceHead>,
        program: Option<&SourceHead>,
        options: PlanOptions,
    ) -> Draft {
        let whole = |s: Option<&SourceHead>| s.and_then(|s| s.whole()).map(str::to_string);
        let (spec_saved, program_saved) =
            (RwSignal::new(whole(spec)), RwSignal::new(whole(program)));
        let spec_text = RwSignal::new(spec_saved.get_untracked().unwrap_or_default());
        let program_text = RwSignal::new(program_saved.get_untracked().unwrap_or_default());
        let loaded = {
            let (has_spec, has_program) = (spec.is_some(), program.is_some());
            Memo::new(move |_| {
                (!has_spec || spec_saved.with(Option::is_some))
                    && (!has_program || program_saved.with(Option::is_some))
            })
        };
        let (spec_markers, program_markers) =
            (RwSignal::new(Vec::<EditorMarker>::new()), RwSignal::new(Vec::<EditorMarker>::new()));
        let errors = Memo::new(move |_| {
            let count = |m: RwSignal<Vec<EditorMarker>>| {
                m.with(|m| m.iter().filter(|m| m.severity == "error").count())
            };
            count(spec_markers) + count(program_markers)
        });
        let saved_options = options.clone();
        let options = RwSignal::new(options);
        let options_changed = Memo::new(move |_| options.with(|o| *o != saved_options));
        let edited = |text: RwSignal<String>, saved: RwSignal<Option<String>>| {
            saved.with(|s| s.as_ref().is_some_and(|s| text.with(|t| t != s)))
        };
        let changed = Memo::new(move |_| {
            loaded.get()
                && (edited(spec_text, spec_saved)
                    || edited(program_text, program_saved)
                    || options_changed.get())
        });
        Draft {
            spec_text,
            program_text,
            spec_saved,
            program_saved,
            spec_markers,
            program_markers,
            options,
            loaded,
            errors,
            changed,
        }
    }
}

#[component]
pub(super) fn SourceSection(
    draft: Draft,
    spec: Option<SourceHead>,
    program: Option<SourceHead>,
    /// Where the editors fetch the whole text of this revision.
    revision: Call<NoBody, PlanView>,
    stack_id: String,
    plan_id: String,
    read_only: bool,
    problem: RwSignal<Option<String>>,
) -> impl IntoView {
    let Draft {
        spec_text,
        program_text,
        spec_saved,
        program_saved,
        spec_markers,
        program_markers,
        options,
        loaded,
        errors,
        changed,
    } = draft;
    let is_program = program.is_some();
    let save = {
        let (has_spec, has_program) = (spec.is_some(), program.is_some());
        move |_| {
            // The options as they were (resolutions included), with the user's changes.
            let input = PlanInput {
                title: None,
                spec: has_spec.then(|| spec_text.get_untracked()),
                program: has_program.then(|| program_text.get_untracked()),
                options: options.get_untracked(),
            };
            let _plan_id = plan_id.clone();
            problem.set(None);
            #[cfg(not(feature = "hydrate"))]
            let _ = input;
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                let call = ferry_types::api::SAVE_PLAN.at(&[&_plan_id]);
                match crate::client::send(&call, &input).await {
                    Ok(_) => crate::browser::go_to(&format!("/plans/{_plan_id}")),
                    Err(e) => problem.set(Some(e)),
                }
            });
        }
    };
    view! {
        <section class="card">
            <h2>{if is_program { "Program" } else { "Import spec" }}</h2>
            {spec.map(|s| view! {
                <SourceEditor kind=SourceKind::Spec head=s revision=revision.clone() text=spec_text saved=spec_saved markers=spec_markers stack_id=stack_id.clone() read_only=read_only/>
            })}
            {program.map(|p| view! {
                <SourceEditor kind=SourceKind::Program head=p revision=revision.clone() text=program_text saved=program_saved markers=program_markers stack_id=stack_id.clone() read_only=read_only/>
            })}
            <ul class="markers" id="plan-markers">
                {move || spec_markers.get().into_iter().chain(program_markers.get()).map(|m| view! {
                    <li class=format!("marker {}", m.severity)>{format!("{}:{} {} — {}", m.line, m.column, m.severity, m.message)}</li>
                }).collect_view()}
            </ul>
            {(!read_only).then(|| view! {
                <div class="actions">
                    <button id="plan-save" on:click=save disabled=move || { errors.get() > 0 || !changed.get() }>"Save revision"</button>
                    <span class="meta" id="plan-save-state">{move || if !loaded.get() {
                        format!("Loading the whole {}…", if is_program { SourceKind::Program.noun() } else { SourceKind::Spec.noun() })
                    } else if errors.get() > 0 {
                        format!("{} problem(s) to fix before saving", errors.get())
                    } else if changed.get() { "Unsaved changes".to_string() } else { "Saved".to_string() }}</span>
                </div>
            })}
            <PlanOptionsForm options=options is_program=is_program read_only=read_only/>
        </section>
    }
    .into_any()
}

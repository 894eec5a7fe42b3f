//! Review as a workflow on the plan page: comments on a resource (and a property) in threads,
//! approvals of the latest revision's preview, the plan's timeline, and two revisions compared
//! side by side with what changed in their previews. Read-only links see comments without the
//! controls, and nothing else here.

use std::collections::BTreeMap;

use ferry_types::api::{self, ApprovalInput, CommentInput, CommentResolution};
use ferry_types::plans::ChangeRequestInput;
use ferry_types::{ApprovalStateView, AuditEntry, CommentView, PlanAccess, ResultRow};
use leptos::prelude::*;

use super::diff_view::DiffView;

/// What a comment form sends: a new comment (or reply), or a thread resolved or reopened.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
enum CommentChange {
    Add(CommentInput),
    Resolve { thread: String, resolution: CommentResolution },
}

/// The threads on one resource of the revision, with a form to start one (on the resource or
/// one of `properties`), reply, and resolve.
#[component]
pub(super) fn Comments(access: PlanAccess, urn: String, properties: Vec<String>) -> impl IntoView {
    let comments = RwSignal::new(Vec::<CommentView>::new());
    let problem = RwSignal::new(None::<String>);
    let load = {
        // Every revision's: threads started on an earlier revision stay in view, marked with it.
        let (call, urn, shown) = (access.comments(), urn.clone(), access.revision);
        move || {
            let (_call, _urn) = (call.clone(), urn.clone());
            let _ = shown;
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                match crate::client::call(&_call).await {
                    Ok(all) => comments.set(
                        all.into_iter().filter(|c| c.urn == _urn && c.revision <= shown).collect(),
                    ),
                    Err(e) => problem.set(Some(e)),
                }
            });
        }
    };
    load();
    let post = {
        let (plan, load) = (access.plan_id.clone(), load.clone());
        move |change: CommentChange| {
            let (_plan, _load) = (plan.clone(), load.clone());
            #[cfg(not(feature = "hydrate"))]
            let _ = change;
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                let done = match change {
                    CommentChange::Add(input) => {
                        crate::client::send(&api::ADD_COMMENT.at(&[&_plan]), &input).await
                    }
                    CommentChange::Resolve { thread, resolution } => {
                        let call = api::RESOLVE_COMMENT.at(&[&_plan, &thread]);
                        crate::client::send(&call, &resolution).await
                    }
                };
                match done {
                    Ok(_) => {
                        problem.set(None);
                        _load();
                    }
                    Err(e) => problem.set(Some(e)),
                }
            });
        }
    };
    let text = RwSignal::new(String::new());
    let property = RwSignal::new(String::new());
    let add = {
        let (post, urn, revision) = (post.clone(), urn.clone(), access.revision);
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let path = property.get_untracked();
            post(CommentChange::Add(CommentInput {
                revision,
                urn: urn.clone(),
                path: (!path.is_empty()).then_some(path),
                parent: None,
                body: text.get_untracked(),
            }));
            text.set(String::new());
        }
    };
    let may_comment = access.may_comment;
    let revision = access.revision;
    view! {
        <div class="comments" id="review-comments">
            <h3>"Comments"</h3>
            {move || problem.get().map(|p| view! { <p class="error">{p}</p> })}
            {move || {
                let all = comments.get();
                if all.is_empty() {
                    return view! { <p class="meta" id="comments-none">"No comments on this resource yet."</p> }.into_any();
                }
                let mut threads: BTreeMap<String, (Option<CommentView>, Vec<CommentView>)> = BTreeMap::new();
                for c in &all {
                    match &c.parent_id {
                        Some(parent) => threads.entry(parent.clone()).or_default().1.push(c.clone()),
                        None => threads.entry(c.id.clone()).or_default().0 = Some(c.clone()),
                    }
                }
                threads.into_values().filter_map(|(first, replies)| first.map(|f| (f, replies))).map(|(first, replies)| {
                    let resolved = first.resolved_at.is_some();
                    let thread = first.id.clone();
                    let post = post.clone();
                    let reply_text = RwSignal::new(String::new());
                    let (reply_post, resolve_post, thread_for_reply, urn) = (post.clone(), post.clone(), thread.clone(), first.urn.clone());
                    view! {
                        <div class="thread" class:resolved=resolved data-thread=thread.clone()>
                            <p class="comment-anchor">{first.path.clone().map(|p| format!("on `{p}`")).unwrap_or_else(|| "on the resource".into())}
                                {(first.revision < revision).then(|| format!(" · started on revision {}", first.revision))}
                                {first.resolved_by.clone().map(|by| view! { <span class="badge">{format!("resolved by {by}")}</span> })}</p>
                            {std::iter::once(first.clone()).chain(replies).map(|c| view! {
                                <div class="comment"><span class="comment-author">{c.author}</span>" "<span class="meta">{c.created_at}</span><p class="comment-body">{c.body}</p></div>
                            }).collect_view()}
                            {may_comment.then(|| view! {
                                <form class="row" on:submit=move |ev: leptos::ev::SubmitEvent| {
                                    ev.prevent_default();
                                    reply_post(CommentChange::Add(CommentInput { revision, urn: urn.clone(), path: None, parent: Some(thread_for_reply.clone()), body: reply_text.get_untracked() }));
                                }>
                                    <input class="reply-text" placeholder="Reply" aria-label="Reply" prop:value=move || reply_text.get() on:input=move |ev| reply_text.set(event_target_value(&ev))/>
                                    <button type="submit" class="small secondary">"Reply"</button>
                                    <button type="button" class="small secondary resolve-thread" on:click={
                                        let thread = thread.clone();
                                        move |_| resolve_post(CommentChange::Resolve { thread: thread.clone(), resolution: CommentResolution { resolved: !resolved } })
                                    }>{if resolved { "Reopen" } else { "Resolve" }}</button>
                                </form>
                            })}
                        </div>
                    }
                }).collect_view().into_any()
            }}
            {may_comment.then(|| view! {
                <form class="new-comment" id="comment-form" on:submit=add>
                    <select id="comment-property" aria-label="What the comment is on" on:change=move |ev| property.set(event_target_value(&ev))>
                        <option value="">"the resource"</option>
                        {properties.iter().map(|p| view! { <option value=p.clone()>{p.clone()}</option> }).collect_view()}
                    </select>
                    <textarea id="comment-text" placeholder="Comment on this resource" aria-label="Comment on this resource" prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea>
                    <button type="submit" id="comment-submit">"Comment"</button>
                </form>
            })}
        </div>
    }
}

/// The latest revision's preview, its approvals and requests for changes, against the stack's
/// rule; approvers approve what they looked at, or ask for changes to it.
#[component]
pub(super) fn Approvals(access: PlanAccess, epoch: RwSignal<u32>) -> impl IntoView {
    let state = RwSignal::new(None::<ApprovalStateView>);
    let problem = RwSignal::new(None::<String>);
    let me = RwSignal::new(None::<String>);
    let asked = RwSignal::new(String::new());
    let plan = access.plan_id.clone();
    {
        let approvals = api::APPROVALS.at(&[&plan]);
        Effect::new(move |_| {
            epoch.track();
            let _approvals = approvals.clone();
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                match crate::client::call(&_approvals).await {
                    Ok(s) => state.set(Some(s)),
                    Err(e) => problem.set(Some(e)),
                }
                if me.get_untracked().is_none() {
                    if let Ok(who) = crate::client::call(&api::ME.at(&[])).await {
                        me.set(Some(who.name));
                    }
                }
            });
        });
    }
    // Asking for changes, or withdrawing one's request, answers the plan's status: the panel
    // reads the approvals again.
    let request_changes = {
        let plan = plan.clone();
        move |revision: i64, preview: String| {
            let _asked = ChangeRequestInput { revision, preview, body: asked.get_untracked() };
            let _call = api::REQUEST_CHANGES.at(&[&plan]);
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                match crate::client::send(&_call, &_asked).await {
                    Ok(_) => {
                        problem.set(None);
                        asked.set(String::new());
                        epoch.update(|e| *e += 1);
                    }
                    Err(e) => problem.set(Some(e)),
                }
            });
        }
    };
    let withdraw_request = {
        let plan = plan.clone();
        move |reviewer: String| {
            let _call = api::WITHDRAW_CHANGE_REQUEST.at(&[&plan, &reviewer]);
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                match crate::client::call(&_call).await {
                    Ok(_) => {
                        problem.set(None);
                        epoch.update(|e| *e += 1);
                    }
                    Err(e) => problem.set(Some(e)),
                }
            });
        }
    };
    let approve = {
        move |revision: i64, preview: String| {
            let (_call, _body) = (api::APPROVE.at(&[&plan]), ApprovalInput { revision, preview });
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                match crate::client::send(&_call, &_body).await {
                    Ok(s) => {
                        problem.set(None);
                        state.set(Some(s));
                        // The plan's state and its commit's blockers moved too.
                        epoch.update(|e| *e += 1);
                    }
                    Err(e) => problem.set(Some(e)),
                }
            });
        }
    };
    let (may_approve, viewing) = (access.may_approve, access.revision);
    view! {
        <section class="card" id="plan-approvals">
            <h2>"Approvals"</h2>
            {move || problem.get().map(|p| view! { <p class="error" id="approval-error">{p}</p> })}
            {move || state.get().map(|s| {
                let approve = approve.clone();
                let (request_changes, withdraw_request) = (request_changes.clone(), withdraw_request.clone());
                let mine = me.get();
                let summary = if s.required_approvals == 0 {
                    format!("This stack needs no approval to commit; {} given to revision {}.", s.approvals.len(), s.revision)
                } else {
                    format!("{} of {} approvals for revision {}'s preview.", s.approvals.len(), s.required_approvals, s.revision)
                };
                let can = may_approve && s.preview.is_some() && s.revision == viewing;
                view! {
                    <p id="approval-summary" class:satisfied=s.satisfied>{summary}</p>
                    {s.reason.clone().filter(|_| s.required_approvals > 0 || !s.changes_requested.is_empty()).map(|r| view! { <p class="meta" id="approval-reason">{r}</p> })}
                    <ul id="approval-list">{s.approvals.iter().map(|a| view! { <li>{format!("{} approved revision {} at {}", a.approver, a.revision, a.created_at)}</li> }).collect_view()}</ul>
                    <ul id="change-request-list">
                        {s.changes_requested.iter().map(|r| {
                            let withdraw = withdraw_request.clone();
                            let reviewer = r.reviewer.clone();
                            let own = mine.as_deref() == Some(r.reviewer.as_str());
                            view! {
                                <li class="change-request">
                                    <b>{r.reviewer.clone()}</b>{format!(" requested changes to revision {} at {}", r.revision, r.created_at)}
                                    {(!r.body.is_empty()).then(|| view! { <blockquote>{r.body.clone()}</blockquote> })}
                                    {own.then(|| view! { <button class="secondary" id="withdraw-change-request" on:click=move |_| withdraw(reviewer.clone())>"Withdraw my request"</button> })}
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                    {can.then(|| {
                        let (revision, preview) = (s.revision, s.preview.clone().unwrap_or_default());
                        let (approve_preview, request_preview) = (preview.clone(), preview);
                        view! {
                            <div class="review-actions">
                                <button id="plan-approve" on:click=move |_| approve(revision, approve_preview.clone())>{format!("Approve revision {revision}")}</button>
                                <label class="request-changes">"What should change?"
                                    <textarea id="request-changes-body" rows="2" prop:value=move || asked.get() on:input=move |ev| asked.set(event_target_value(&ev))></textarea>
                                </label>
                                <button class="secondary" id="plan-request-changes" on:click=move |_| request_changes(revision, request_preview.clone())>"Request changes"</button>
                            </div>
                        }
                    })}
                }
            })}
        </section>
    }
    .into_any()
}

/// Who did what to the plan, and when.
#[component]
pub(super) fn Timeline(plan_id: String, epoch: RwSignal<u32>) -> impl IntoView {
    let entries = RwSignal::new(Vec::<AuditEntry>::new());
    let _activity = api::ACTIVITY.at(&[&plan_id]);
    Effect::new(move |_| {
        epoch.track();
        let _activity = _activity.clone();
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            if let Ok(list) = crate::client::call(&_activity).await {
                entries.set(list);
            }
        });
    });
    let said = |action: &str| match action {
        "plan.create" => "created the plan",
        "plan.revise" => "saved a revision",
        "plan.preview" => "previewed",
        "plan.resolve" => "resolved differences",
        "comment.add" => "commented",
        "comment.resolve" => "resolved a thread",
        "plan.approve" => "approved",
        "plan.approval.withdraw" => "withdrew an approval",
        "plan.request-changes" => "requested changes",
        "plan.change-request.withdraw" => "withdrew a request for changes",
        "plan.close" => "closed the plan",
        "plan.reopen" => "reopened the plan",
        "preview.commit" => "committed",
        "share.create" => "made a read-only link",
        "share.revoke" => "revoked a read-only link",
        _ => "acted",
    };
    view! {
        <section class="card" id="plan-timeline">
            <h2>"Activity"</h2>
            <ol class="timeline">
                {move || entries.get().into_iter().map(|e| view! {
                    <li class="timeline-entry" data-action=e.action.clone()><span class="meta">{e.at.clone()}</span>" "<b>{e.actor.clone()}</b>" "{said(&e.action)}</li>
                }).collect_view()}
            </ol>
        </section>
    }
}

/// One side of a comparison: the revision's text, and its latest preview's rows by URN.
#[derive(Clone, Default)]
struct Side {
    text: String,
    rows: BTreeMap<String, ResultRow>,
}

/// Two revisions side by side in Monaco's diff editor, with what changed in their previews.
#[component]
pub(super) fn CompareRevisions(access: PlanAccess, latest: i64) -> impl IntoView {
    let from = RwSignal::new((access.revision - 1).max(1));
    let to = RwSignal::new(access.revision);
    let sides = RwSignal::new(None::<Result<(Side, Side), String>>);
    let compare = {
        let access = access.clone();
        move |_| {
            let (_access, _from, _to) = (access.clone(), from.get_untracked(), to.get_untracked());
            sides.set(None);
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                let result = async {
                    Ok::<_, String>((side(&_access, _from).await?, side(&_access, _to).await?))
                }
                .await;
                sides.set(Some(result));
            });
        }
    };
    let options = move |selected: RwSignal<i64>| {
        (1..=latest).map(move |n| view! { <option value=n.to_string() selected=move || selected.get() == n>{format!("r{n}")}</option> }).collect_view()
    };
    view! {
        <section class="card" id="plan-compare">
            <h2>"Compare revisions"</h2>
            <div class="row">
                <select id="compare-from" aria-label="From revision" on:change=move |ev| from.set(event_target_value(&ev).parse().unwrap_or(1))>{options(from)}</select>
                "→"
                <select id="compare-to" aria-label="To revision" on:change=move |ev| to.set(event_target_value(&ev).parse().unwrap_or(1))>{options(to)}</select>
                <button class="secondary" id="compare-run" on:click=compare>"Compare"</button>
            </div>
            {move || sides.get().map(|r| match r {
                Err(e) => view! { <p class="error">{e}</p> }.into_any(),
                Ok((a, b)) => {
                    let urns: std::collections::BTreeSet<String> = a.rows.keys().chain(b.rows.keys()).cloned().collect();
                    let changes: Vec<(String, String, String)> = urns.into_iter().filter_map(|urn| {
                        let (x, y) = (a.rows.get(&urn), b.rows.get(&urn));
                        let describe = |r: Option<&ResultRow>| r.map(|r| if r.differs.is_empty() { r.status.to_string() } else { format!("{} (differs: {})", r.status, r.differs.join(", ")) }).unwrap_or_else(|| "—".into());
                        let (dx, dy) = (describe(x), describe(y));
                        (dx != dy).then(|| (x.or(y).map(|r| r.name.clone()).unwrap_or(urn), dx, dy))
                    }).collect();
                    view! {
                        <DiffView original=a.text.clone() modified=b.text.clone() id="compare-diff"/>
                        <h3>"What changed in their previews"</h3>
                        {if changes.is_empty() {
                            view! { <p class="meta" id="compare-same">"Their latest previews agree on every resource."</p> }.into_any()
                        } else {
                            view! {
                                <table id="compare-changes"><thead><tr><th>"Resource"</th><th>{format!("r{}", from.get_untracked())}</th><th>{format!("r{}", to.get_untracked())}</th></tr></thead>
                                <tbody>{changes.into_iter().map(|(n, x, y)| view! { <tr><td>{n}</td><td>{x}</td><td>{y}</td></tr> }).collect_view()}</tbody></table>
                            }.into_any()
                        }}
                    }.into_any()
                }
            })}
        </section>
    }
}

#[cfg(feature = "hydrate")]
async fn side(access: &PlanAccess, revision: i64) -> Result<Side, String> {
    let current = crate::client::call(&access.revision_view(revision)).await?.current;
    let text = current.program.or(current.spec).unwrap_or_default();
    let previews = current.previews;
    let mut rows = BTreeMap::new();
    if let Some(last) = previews.last() {
        let preview = match &access.share_token {
            Some(token) => ferry_types::PreviewRef::Shared {
                token: token.clone(),
                revision,
                index: previews.len() - 1,
            },
            None => ferry_types::PreviewRef::Owner { preview: last.clone() },
        };
        // Every row, a page at a time.
        let mut read = 0;
        loop {
            let query = ferry_types::ResultQuery { offset: read, ..Default::default() };
            let page = crate::client::call(&preview.results(&query)).await?;
            read += page.rows.len();
            let done = page.rows.is_empty() || read >= page.matched;
            for row in page.rows {
                rows.insert(row.urn.clone(), row);
            }
            if done {
                break;
            }
        }
    }
    Ok(Side { text, rows })
}

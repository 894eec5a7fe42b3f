//! Read-only links to a plan: make one to hand to reviewers, copy it, revoke it.

use ferry_types::plans::ShareLink;
use leptos::prelude::*;

/// A link as this page shows it: its token only when it was made here, now (Ferry keeps a
/// link's hash, so a listed link cannot be copied again; a new one can be made).
#[derive(Debug, Clone)]
struct Shown {
    link: ShareLink,
    token: Option<String>,
}

#[component]
pub(super) fn SharePanel(plan_id: String) -> impl IntoView {
    let shares = RwSignal::new(Vec::<Shown>::new());
    let problem = RwSignal::new(None::<String>);
    #[cfg(feature = "hydrate")]
    {
        let plan_id = plan_id.clone();
        leptos::task::spawn_local(async move {
            if let Ok(list) = crate::client::call(&ferry_types::api::SHARES.at(&[&plan_id])).await {
                shares.set(list.into_iter().map(|link| Shown { link, token: None }).collect());
            }
        });
    }
    let create = {
        let plan_id = plan_id.clone();
        move |_| {
            let _create = ferry_types::api::CREATE_SHARE.at(&[&plan_id]);
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                match crate::client::call(&_create).await {
                    Ok(s) => {
                        shares.update(|l| l.push(Shown { link: s.link, token: Some(s.token) }))
                    }
                    Err(e) => problem.set(Some(e)),
                }
            });
        }
    };
    let origin = move || {
        #[cfg(feature = "hydrate")]
        {
            web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default()
        }
        #[cfg(not(feature = "hydrate"))]
        String::new()
    };
    view! {
        <details class="share" id="plan-share">
            <summary>"Share read-only"</summary>
            <p class="meta">"Reviewers with the link see the plan, its previews, diffs, graph and code; they cannot edit, preview or commit."</p>
            <button id="plan-share-create" on:click=create>"New read-only link"</button>
            {move || problem.get().map(|p| view! { <p class="error">{p}</p> })}
            <ul class="share-links">
                {move || shares.get().into_iter().map(|s| {
                    let url = match &s.token {
                        Some(token) => format!("{}/shared/{token}", origin()),
                        None => format!("made {} (the link was shown once, when it was made)", s.link.created_at),
                    };
                    let revoked = s.link.revoked_at.is_some() || !s.link.active;
                    let id = s.link.id.clone();
                    let _plan = plan_id.clone();
                    let revoke = move |_| {
                        let _revoke = ferry_types::api::REVOKE_SHARE.at(&[&_plan, &id]);
                        #[cfg(feature = "hydrate")]
                        leptos::task::spawn_local(async move {
                            match crate::client::call(&_revoke).await {
                                Ok(done) => shares.update(|l| {
                                    for s in l.iter_mut().filter(|s| s.link.id == done.id) {
                                        s.link = done.clone();
                                    }
                                }),
                                Err(e) => problem.set(Some(e)),
                            }
                        });
                    };
                    view! {
                        <li class:revoked=revoked>
                            <input class="share-url" readonly aria-label="Read-only link" value=url.clone()/>
                            {if revoked {
                                view! { <span class="meta">"revoked"</span> }.into_any()
                            } else {
                                let u = url.clone();
                                let copy = s.token.is_some().then(|| view! {
                                    <button class="secondary small" on:click=move |_| { let _ = &u; #[cfg(feature = "hydrate")] crate::browser::copy_text(&u); }>"Copy"</button>
                                });
                                view! {
                                    {copy}
                                    <button class="secondary small share-revoke" on:click=revoke>"Revoke"</button>
                                }.into_any()
                            }}
                        </li>
                    }
                }).collect_view()}
            </ul>
        </details>
    }
}

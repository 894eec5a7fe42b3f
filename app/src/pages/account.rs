//! Signing in (`/signin`: a plain form, so it works before the wasm loads) and the account page
//! (`/account`: who you are, your password, your API tokens; for administrators, their
//! organisation's audit log).

use ferry_types::api;
use ferry_types::{ApiTokenInfo, AuditEntry, Me, MemberView, OrgSettingsView, Role};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use crate::server_fns::current_user;

#[component]
pub fn SignInPage() -> impl IntoView {
    let query = use_query_map();
    let error = move || query.with(|q| q.get("error"));
    let next = move || query.with(|q| q.get("next")).unwrap_or_else(|| "/".into());
    let methods = Resource::new(|| (), |_| crate::server_fns::sign_in_methods());
    view! {
        <section class="card signin">
            <h1>"Sign in to Ferry"</h1>
            {move || error().map(|e| view! { <p class="error" id="signin-error">{e}</p> })}
            <form method="post" action="/auth/login" id="signin-form">
                <input type="hidden" name="next" prop:value=next/>
                <label>"Name"<input name="name" id="signin-name" autocomplete="username" required/></label>
                <label>"Password"<input name="password" id="signin-password" type="password" autocomplete="current-password" required/></label>
                <button type="submit" id="signin-submit">"Sign in"</button>
            </form>
            <Suspense fallback=|| ()>
                {move || methods.get().and_then(Result::ok).filter(|m| m.oidc).map(|_| {
                    let href = format!("/auth/oidc/login?next={}", crate::format::encode_query_value(&next()));
                    view! { <p class="oidc"><a class="button" id="signin-oidc" href=href rel="external">"Sign in with your organisation's OpenID Provider"</a></p> }
                })}
            </Suspense>
        </section>
    }
}

/// The signed-in user in the top bar, with sign-out.
#[component]
pub fn UserMenu() -> impl IntoView {
    let me = Resource::new(|| (), |_| current_user());
    view! {
        <Suspense fallback=|| ()>
            {move || me.get().and_then(Result::ok).flatten().map(|me| view! {
                <span class="user-menu">
                    <a href="/account" id="user-name">{me.name}</a>
                    <form method="post" action="/auth/logout" class="inline">
                        <button type="submit" class="link" id="sign-out">"Sign out"</button>
                    </form>
                </span>
            })}
        </Suspense>
    }
}

#[component]
pub fn AccountPage() -> impl IntoView {
    let me = Resource::new(|| (), |_| current_user());
    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            {move || me.get().map(|me| match me {
                Ok(Some(me)) => view! { <Account me=me/> }.into_any(),
                Ok(None) => view! { <section class="card"><p>"You are not signed in. "<a href="/signin?next=/account">"Sign in"</a></p></section> }.into_any(),
                Err(e) => view! { <section class="card"><p class="error">{super::error_text(&e)}</p></section> }.into_any(),
            })}
        </Suspense>
    }
}

#[component]
fn Account(me: Me) -> impl IntoView {
    let admin_orgs: Vec<String> =
        me.roles.iter().filter(|g| g.role == Role::Admin).map(|g| g.org.clone()).collect();
    let roles = me
        .roles
        .iter()
        .map(|g| {
            format!(
                "{} in {}",
                g.role,
                if g.org == "*" {
                    "every organisation".to_string()
                } else {
                    format!("`{}`", g.org)
                }
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    view! {
        <section class="card">
            <h1 id="account-name">{me.name.clone()}</h1>
            <p class="meta" id="account-roles">{if roles.is_empty() { "No roles yet: ask an administrator.".to_string() } else { roles }}</p>
            <button class="secondary" id="sign-out-everywhere" on:click=move |_| {
                #[cfg(feature = "hydrate")]
                leptos::task::spawn_local(async move {
                    if crate::client::call(&ferry_types::api::END_ALL_SESSIONS.at(&[])).await.is_ok() {
                        crate::browser::go_to("/signin");
                    }
                });
            }>"Sign out everywhere"</button>
        </section>
        <Password/>
        <Tokens roles=me.roles.clone()/>
        {(!admin_orgs.is_empty()).then(|| view! { <OrgAdmin orgs=admin_orgs.clone()/> })}
        {(!admin_orgs.is_empty()).then(|| view! { <Audit orgs=admin_orgs.clone()/> })}
    }
}

#[component]
fn Password() -> impl IntoView {
    let current = NodeRef::<leptos::html::Input>::new();
    let new = NodeRef::<leptos::html::Input>::new();
    let outcome = RwSignal::new(None::<Result<String, String>>);
    let change = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let current = current.get().map(|i| i.value()).unwrap_or_default();
        let password = new.get().map(|i| i.value()).unwrap_or_default();
        let change = ferry_types::api::PasswordChange {
            current: (!current.is_empty()).then_some(current),
            password,
        };
        let _ = &change;
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let result =
                crate::client::send(&ferry_types::api::CHANGE_PASSWORD.at(&[]), &change).await;
            outcome
                .set(Some(result.map(|_| {
                    "Password changed; your other sessions were signed out.".to_string()
                })));
        });
    };
    view! {
        <section class="card">
            <h2>"Password"</h2>
            <form on:submit=change id="password-form">
                <label>"Current password (none after a sign-in link)"<input type="password" node_ref=current id="password-current" autocomplete="current-password"/></label>
                <label>"New password (at least 10 characters)"<input type="password" node_ref=new id="password-new" autocomplete="new-password" required/></label>
                <button type="submit" id="password-submit">"Set password"</button>
            </form>
            {move || outcome.get().map(|o| match o {
                Ok(text) => view! { <p id="password-outcome">{text}</p> }.into_any(),
                Err(e) => view! { <p class="error" id="password-outcome">{e}</p> }.into_any(),
            })}
        </section>
    }
}

#[component]
fn Tokens(roles: Vec<ferry_types::RoleGrant>) -> impl IntoView {
    let tokens = RwSignal::new(Vec::<ApiTokenInfo>::new());
    let created = RwSignal::new(None::<String>);
    let problem = RwSignal::new(None::<String>);
    let name = NodeRef::<leptos::html::Input>::new();
    let grant = NodeRef::<leptos::html::Select>::new();
    let days = NodeRef::<leptos::html::Input>::new();
    #[cfg(feature = "hydrate")]
    leptos::task::spawn_local(async move {
        if let Ok(list) = crate::client::call(&ferry_types::api::TOKENS.at(&[])).await {
            tokens.set(list);
        }
    });
    let create = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (org, role) = grant
            .get()
            .map(|s| s.value())
            .unwrap_or_default()
            .split_once(' ')
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .unwrap_or_default();
        // The choices are the caller's own grants, so a role that does not read is a bug here.
        let Ok(role) = role.parse::<Role>() else {
            problem.set(Some(format!("choose a role for the token (not `{role}`)")));
            return;
        };
        let token = ferry_types::api::TokenInput {
            name: name.get().map(|i| i.value()).unwrap_or_default(),
            org,
            role,
            days: days.get().and_then(|i| i.value().parse::<i64>().ok()).unwrap_or(30),
        };
        let _ = &token;
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            match crate::client::send(&ferry_types::api::CREATE_TOKEN.at(&[]), &token).await {
                Ok(mut t) => {
                    created.set(t.token.take());
                    problem.set(None);
                    tokens.update(|l| l.insert(0, t));
                }
                Err(e) => problem.set(Some(e)),
            }
        });
    };
    let revoke = move |id: String| {
        let _ = &id;
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            match crate::client::call(&ferry_types::api::REVOKE_TOKEN.at(&[&id])).await {
                Ok(t) => tokens.update(|l| {
                    if let Some(slot) = l.iter_mut().find(|x| x.id == t.id) {
                        *slot = t;
                    }
                }),
                Err(e) => problem.set(Some(e)),
            }
        });
    };
    view! {
        <section class="card">
            <h2>"API tokens"</h2>
            <p class="meta">"For scripts and CI: send as "<code>"Authorization: Bearer <token>"</code>". A token acts with one of your roles, and only while you hold it."</p>
            <form on:submit=create id="token-form" class="row">
                <input node_ref=name id="token-name" placeholder="what it is for" aria-label="What the token is for" required/>
                <select node_ref=grant id="token-role" aria-label="The role the token acts with">
                    {roles.iter().map(|g| {
                        let value = format!("{} {}", g.org, g.role);
                        let label = format!("{} in {}", g.role, if g.org == "*" { "every organisation" } else { g.org.as_str() });
                        view! { <option value=value>{label}</option> }
                    }).collect_view()}
                </select>
                <label>"days"<input node_ref=days id="token-days" type="number" min="1" max="366" value="30"/></label>
                <button type="submit" id="token-create">"Create token"</button>
            </form>
            {move || created.get().map(|t| view! {
                <p class="notice">"Copy it now; it is not shown again: "<code id="token-secret">{t}</code></p>
            })}
            {move || problem.get().map(|p| view! { <p class="error">{p}</p> })}
            <table class="tokens" id="token-list">
                <thead><tr><th>"Name"</th><th>"Role"</th><th>"Expires"</th><th>"State"</th><th></th></tr></thead>
                <tbody>
                    {move || tokens.get().into_iter().map(|t| {
                        let id = t.id.clone();
                        let state = if t.revoked_at.is_some() { "revoked" } else if t.active { "active" } else { "expired" };
                        view! {
                            <tr>
                                <td>{t.name.clone()}</td>
                                <td>{format!("{} in {}", t.role, t.org)}</td>
                                <td>{t.expires_at.clone()}</td>
                                <td>{state}</td>
                                <td>{t.active.then(|| view! { <button class="secondary" on:click=move |_| revoke(id.clone())>"Revoke"</button> })}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}

#[component]
fn Audit(orgs: Vec<String>) -> impl IntoView {
    let org = RwSignal::new(orgs.first().cloned().unwrap_or_default());
    let records = RwSignal::new(Vec::<AuditEntry>::new());
    let problem = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        let _log = api::AUDIT
            .at_with(&[&org.get()], &api::AuditQuery { limit: Some(500), ..Default::default() });
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            match crate::client::call(&_log).await {
                Ok(list) => {
                    records.set(list);
                    problem.set(None);
                }
                Err(e) => problem.set(Some(e)),
            }
        });
    });
    view! {
        <section class="card">
            <h2>"Audit log"</h2>
            <p class="meta">
                "Every change, sign-in and failed sign-in, oldest first. Export as JSON lines: "
                {move || {
                    let jsonl = api::AuditQuery { format: Some("jsonl".into()), ..Default::default() };
                    let href = api::AUDIT.url_with(&[&org.get()], &jsonl);
                    let text = href.clone();
                    view! { <a href=href id="audit-export" rel="external">{text}</a> }
                }}
            </p>
            <select id="audit-org" aria-label="Organisation" on:change=move |ev| org.set(event_target_value(&ev))>
                {orgs.iter().map(|o| view! { <option value=o.clone()>{if o == "*" { "every organisation".to_string() } else { o.clone() }}</option> }).collect_view()}
            </select>
            {move || problem.get().map(|p| view! { <p class="error">{p}</p> })}
            <table class="audit" id="audit-log">
                <thead><tr><th>"When"</th><th>"Who"</th><th>"Action"</th><th>"Object"</th><th>"Outcome"</th><th>"Address"</th></tr></thead>
                <tbody>
                    {move || records.get().into_iter().map(|r| view! {
                        <tr class="audit-record">
                            <td>{r.at}</td><td>{r.actor}</td><td class="audit-action">{r.action}</td><td>{r.object}</td><td>{r.outcome}</td><td>{r.address.unwrap_or_default()}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}

/// An administrator's organisation: its members and their roles, invitations for newcomers, and
/// its settings.
#[component]
fn OrgAdmin(orgs: Vec<String>) -> impl IntoView {
    let org = RwSignal::new(orgs.first().cloned().unwrap_or_default());
    let members = RwSignal::new(Vec::<MemberView>::new());
    let settings = RwSignal::new(None::<OrgSettingsView>);
    let problem = RwSignal::new(None::<String>);
    let epoch = RwSignal::new(0u32);
    Effect::new(move |_| {
        epoch.track();
        let _org = org.get();
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            match crate::client::call(&api::MEMBERS.at(&[&_org])).await {
                Ok(list) => members.set(list),
                Err(e) => problem.set(Some(e)),
            }
            if let Ok(s) = crate::client::call(&api::ORG_SETTINGS.at(&[&_org])).await {
                settings.set(Some(s));
            }
        });
    });
    let name = NodeRef::<leptos::html::Input>::new();
    let chosen = RwSignal::new(vec![Role::Viewer]);
    // The link of the invitation just made: shown once (Ferry keeps only its hash).
    let invitation_link = RwSignal::new(None::<String>);
    let invite = move |_| {
        let _input =
            ferry_types::invitations::InvitationInput { roles: chosen.get_untracked(), days: None };
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let call = api::INVITE.at(&[&org.get_untracked()]);
            match crate::client::send(&call, &_input).await {
                Ok(made) => {
                    let origin = web_sys::window()
                        .and_then(|w| w.location().origin().ok())
                        .unwrap_or_default();
                    invitation_link.set(Some(format!("{origin}/invitations/{}", made.token)));
                    problem.set(None);
                }
                Err(e) => problem.set(Some(e)),
            }
        });
    };
    let set_member = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let who = name.get().map(|i| i.value()).unwrap_or_default();
        let member = api::MemberInput { roles: chosen.get_untracked(), password: None };
        let _ = (&who, &member);
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let call = api::SET_MEMBER.at(&[&org.get_untracked(), &who]);
            match crate::client::send(&call, &member).await {
                Ok(_) => {
                    problem.set(None);
                    epoch.update(|e| *e += 1);
                }
                Err(e) => problem.set(Some(e)),
            }
        });
    };
    let save_settings = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(_settings) = settings.get_untracked() else { return };
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let call = api::SET_ORG_SETTINGS.at(&[&org.get_untracked()]);
            match crate::client::send(&call, &_settings).await {
                Ok(_) => problem.set(None),
                Err(e) => problem.set(Some(e)),
            }
        });
    };
    view! {
        <section class="card" id="org-admin">
            <h2>"Organisation"</h2>
            <select id="org-admin-org" aria-label="Organisation" on:change=move |ev| org.set(event_target_value(&ev))>
                {orgs.iter().map(|o| view! { <option value=o.clone()>{if o == "*" { "every organisation".to_string() } else { o.clone() }}</option> }).collect_view()}
            </select>
            {move || problem.get().map(|p| view! { <p class="error">{p}</p> })}
            <h3>"Members"</h3>
            <table class="audit" id="org-members">
                <thead><tr><th>"Name"</th><th>"Email"</th><th>"Roles"</th></tr></thead>
                <tbody>{move || members.get().into_iter().map(|m| view! {
                    <tr><td>{m.name}</td><td>{m.email.unwrap_or_default()}</td>
                    <td>{m.roles.iter().map(|g| if g.org == "*" { format!("{} (everywhere)", g.role) } else { g.role.to_string() }).collect::<Vec<_>>().join(", ")}</td></tr>
                }).collect_view()}</tbody>
            </table>
            <form class="row" id="member-form" on:submit=set_member>
                <input node_ref=name id="member-name" placeholder="user name" aria-label="User name" required/>
                {Role::ALL.into_iter().map(|r| {
                    view! {
                        <label><input type="checkbox" class="member-role" value=r.as_str()
                            prop:checked=move || chosen.with(|c| c.contains(&r))
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                chosen.update(|c| { c.retain(|x| *x != r); if on { c.push(r); } });
                            }/>{r.as_str()}</label>
                    }
                }).collect_view()}
                <button type="submit" id="member-save">"Set a member's roles"</button>
                <button type="button" class="secondary" id="member-invite" on:click=invite>"Invite someone with these roles"</button>
            </form>
            {move || invitation_link.get().map(|link| view! {
                <p class="meta">"Send this link to the person you invite; it is shown once, and works once, for 7 days:"</p>
                <input class="share-url" id="invitation-link" readonly aria-label="Invitation link" value=link/>
            })}
            <h3>"Settings"</h3>
            {move || settings.get().map(|s| view! {
                <form class="row" id="org-settings" on:submit=save_settings>
                    <label><input type="checkbox" id="org-share-links" prop:checked=s.share_links
                        on:change=move |ev| settings.update(|s| if let Some(s) = s { s.share_links = event_target_checked(&ev) })/>"read-only links"</label>
                    <label>"links last (days)"<input type="number" id="org-share-days" min="1" max="366" prop:value=s.share_link_days.to_string()
                        on:change=move |ev| settings.update(|s| if let Some(s) = s { s.share_link_days = event_target_value(&ev).parse().unwrap_or(30) })/></label>
                    <label>"more packages (comma-separated)"<input id="org-packages" prop:value=s.allowed_packages.join(", ")
                        on:change=move |ev| settings.update(|s| if let Some(s) = s {
                            s.allowed_packages = event_target_value(&ev).split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect()
                        })/></label>
                    <button type="submit" id="org-settings-save">"Save settings"</button>
                </form>
            })}
            <super::webhooks::Webhooks org=org/>
        </section>
    }
}

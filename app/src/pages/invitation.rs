//! An invitation's page (`/invitations/:token`): who invites the holder to which organisation
//! with which roles, and one form to accept it — as the signed-in user, or by choosing a name and
//! a password for a new account. The form posts to `/auth/invitations/<token>` (no script
//! needed), which answers with a redirect home, or back here naming the problem.

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::server_fns::{current_user, invitation};

#[component]
pub fn InvitationPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let token = move || params.with(|p| p.get("token")).unwrap_or_default();
    let error = move || query.with(|q| q.get("error"));
    let invitation = Resource::new(token, invitation);
    let me = Resource::new(|| (), |_| current_user());
    view! {
        <section class="card signin" id="invitation">
            <h1>"An invitation to Ferry"</h1>
            {move || error().map(|e| view! { <p class="error" id="invitation-error">{e}</p> })}
            <Suspense fallback=|| view! { <p>"Loading…"</p> }>
                {move || invitation.get().map(|found| match found {
                    Err(e) => view! { <p class="error" id="invitation-problem">{super::error_text(&e)}</p> }.into_any(),
                    Ok(i) => {
                        let action = format!("/auth/invitations/{}", token());
                        let next = format!("/signin?next={}", crate::format::encode_query_value(&format!("/invitations/{}", token())));
                        let roles = i.roles.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(", ");
                        let org = if i.org == "*" { "every organisation".to_string() } else { i.org.clone() };
                        let signed_in = me.get().and_then(Result::ok).flatten();
                        view! {
                            <p id="invitation-text">
                                <strong>{i.invited_by.clone()}</strong>" invites you to "<strong>{org.clone()}</strong>" as "{roles}"."
                            </p>
                            <p class="meta">"Open until "{i.expires_at.clone()}"."</p>
                            {match signed_in {
                                Some(me) => view! {
                                    <form method="post" action=action id="invitation-form">
                                        <button type="submit" id="invitation-accept">{format!("Join {org} as {}", me.name)}</button>
                                    </form>
                                }.into_any(),
                                None => view! {
                                    <form method="post" action=action id="invitation-form">
                                        <label>"Choose a name"<input name="name" id="invitation-name" autocomplete="username" required/></label>
                                        <label>"Choose a password (10 characters or more)"<input name="password" id="invitation-password" type="password" autocomplete="new-password" minlength="10" required/></label>
                                        <button type="submit" id="invitation-accept">"Create my account and join"</button>
                                    </form>
                                    <p class="meta">"Have an account here? "<a href=next id="invitation-signin">"Sign in"</a>" first, and join as yourself."</p>
                                }.into_any(),
                            }}
                        }.into_any()
                    }
                })}
            </Suspense>
        </section>
    }
}

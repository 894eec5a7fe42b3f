//! An organisation's webhooks on the account page (its administrators): the URLs that hear plan
//! events, making one (its secret shown once), removing one, and each one's delivery log.

use ferry_types::api;
use ferry_types::webhooks::{Webhook, WebhookDelivery, WebhookEvent, WebhookInput};
use leptos::prelude::*;

#[component]
pub(crate) fn Webhooks(org: RwSignal<String>) -> impl IntoView {
    let hooks = RwSignal::new(Vec::<Webhook>::new());
    let problem = RwSignal::new(None::<String>);
    let epoch = RwSignal::new(0u32);
    let url = RwSignal::new(String::new());
    let events = RwSignal::new(WebhookEvent::ALL.to_vec());
    // The secret of the webhook just made: shown once (Ferry keeps it sealed, to sign with).
    let secret = RwSignal::new(None::<String>);
    // The webhook whose log is open, and its deliveries.
    let open = RwSignal::new(None::<String>);
    let log = RwSignal::new(Vec::<WebhookDelivery>::new());
    Effect::new(move |_| {
        epoch.track();
        let _list = api::WEBHOOKS.at(&[&org.get()]);
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            match crate::client::call(&_list).await {
                Ok(list) => hooks.set(list),
                Err(e) => problem.set(Some(e)),
            }
        });
    });
    Effect::new(move |_| {
        epoch.track();
        let Some(_id) = open.get() else { return };
        let _deliveries = api::WEBHOOK_DELIVERIES.at(&[&org.get_untracked(), &_id]);
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            match crate::client::call(&_deliveries).await {
                Ok(list) => log.set(list),
                Err(e) => problem.set(Some(e)),
            }
        });
    });
    let create = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let _input = WebhookInput { url: url.get_untracked(), events: events.get_untracked() };
        let _create = api::CREATE_WEBHOOK.at(&[&org.get_untracked()]);
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            match crate::client::send(&_create, &_input).await {
                Ok(made) => {
                    problem.set(None);
                    secret.set(Some(made.secret));
                    url.set(String::new());
                    epoch.update(|e| *e += 1);
                }
                Err(e) => problem.set(Some(e)),
            }
        });
    };
    let remove = move |_id: String| {
        let _remove = api::REMOVE_WEBHOOK.at(&[&org.get_untracked(), &_id]);
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            match crate::client::quietly(&_remove).await {
                Ok(_) => {
                    problem.set(None);
                    epoch.update(|e| *e += 1);
                }
                Err(e) => problem.set(Some(e)),
            }
        });
    };
    view! {
        <h3>"Webhooks"</h3>
        <p class="hint">"Ferry posts each plan event to these URLs as JSON (with a " <code>"text"</code> " chat tools show), signed with HMAC-SHA256 of the body under the webhook's secret in " <code>"X-Ferry-Signature-256"</code> "; a receiver that fails is tried again, six times in all."</p>
        {move || problem.get().map(|p| view! { <p class="error" id="webhook-error" role="alert">{p}</p> })}
        <table class="audit" id="webhook-list">
            <thead><tr><th>"URL"</th><th>"Events"</th><th>"Made by"</th><th></th></tr></thead>
            <tbody>{move || hooks.get().into_iter().map(|h| {
                let (for_log, for_remove) = (h.id.clone(), h.id.clone());
                view! {
                    <tr class="webhook" data-webhook=h.id.clone()>
                        <td>{h.url.clone()}</td>
                        <td>{h.events.iter().map(|e| e.as_str()).collect::<Vec<_>>().join(", ")}</td>
                        <td>{format!("{} at {}", h.created_by, h.created_at)}</td>
                        <td>
                            <button type="button" class="secondary webhook-log" on:click=move |_| open.set(Some(for_log.clone()))>"Deliveries"</button>
                            <button type="button" class="secondary webhook-remove" on:click=move |_| remove(for_remove.clone())>"Remove"</button>
                        </td>
                    </tr>
                }
            }).collect_view()}</tbody>
        </table>
        {move || open.get().map(|_| view! {
            <table class="audit" id="webhook-deliveries">
                <thead><tr><th>"Event"</th><th>"Status"</th><th>"Attempts"</th><th>"Answer"</th><th>"Last attempt"</th><th>"Error"</th></tr></thead>
                <tbody>{move || log.get().into_iter().map(|d| view! {
                    <tr class=format!("delivery delivery-{}", d.status.as_str())>
                        <td>{d.event.as_str()}</td>
                        <td>{d.status.as_str()}</td>
                        <td>{d.attempts}</td>
                        <td>{d.response_code.map(|c| c.to_string()).unwrap_or_else(|| "—".into())}</td>
                        <td>{d.last_attempt_at.unwrap_or_else(|| "—".into())}</td>
                        <td>{d.error.unwrap_or_default()}</td>
                    </tr>
                }).collect_view()}</tbody>
            </table>
        })}
        <form class="row" id="webhook-form" on:submit=create>
            <label>"URL"<input id="webhook-url" type="url" required placeholder="https://hooks.example.com/ferry" prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev))/></label>
            {WebhookEvent::ALL.into_iter().map(|event| view! {
                <label><input type="checkbox" class="webhook-event" value=event.as_str()
                    prop:checked=move || events.with(|e| e.contains(&event))
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        events.update(|e| { e.retain(|x| *x != event); if on { e.push(event); } });
                    }/>{event.as_str()}</label>
            }).collect_view()}
            <button type="submit" id="webhook-create">"Add webhook"</button>
        </form>
        {move || secret.get().map(|s| view! {
            <p class="meta">"The webhook's secret, shown this once: keep it where the receiver checks signatures."</p>
            <input class="share-url" id="webhook-secret" readonly aria-label="The webhook's secret" value=s/>
        })}
    }
    .into_any()
}

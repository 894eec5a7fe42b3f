//! Ferry's web UI: Leptos components rendered on the server (`ssr`) and hydrated in the
//! browser (`hydrate`).
//!
//! Architecture Invariant: with `hydrate` this crate links no server crate; server-only code
//! sits behind `#[cfg(feature = "ssr")]` (the server functions' bodies).

// The plan page's view types nest deeply.
#![recursion_limit = "256"]

#[cfg(feature = "hydrate")]
mod browser;
#[cfg(feature = "hydrate")]
mod client;
pub mod format;
#[cfg(feature = "hydrate")]
mod monaco_glue;
pub mod pages;
pub mod server_fns;

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{path, SsrMode};

use pages::{
    AccountPage, DiscoverPage, GraphPage, HomePage, InvitationPage, NotFound, PlanPage, PlansPage,
    SignInPage, TablePage, UserMenu,
};

const MONACO_ENVIRONMENT: &str = "window.MonacoEnvironment={globalAPI:true,getWorkerUrl:function(_,label){return label==='json'?'/pkg/monaco/json.worker.js':'/pkg/monaco/editor.worker.js'}};";

/// The stylesheet, carried in every page's head: as a file it was a request every first frame
/// waited for, and it arrived with the scripts and the wasm the page asks for at the same time
/// (injected into the server's answers instead, a 10,000-resource stack page's first rows were
/// on screen at a median of 340 ms against 414 ms as a file, eight loads each, 2026-11-27).
/// 14 kB, 4 kB compressed.
const STYLESHEET: &str = include_str!("../../style/main.css");

/// The HTML document around the app (server side only).
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                // Raw text: escaped, the stylesheet's `>` selectors would not parse.
                <style id="site-css" inner_html=STYLESHEET></style>
                <link rel="icon" href="/favicon.svg" type="image/svg+xml"/>
                // The graph renderer (sigma.js, bundled from npm); loads before hydration runs.
                <script src="/pkg/graph.js" defer></script>
                // Monaco's language workers are files beside the wasm (not embedded in it), and
                // its `monaco` global is what the JSON schema settings are reached through.
                <script inner_html=MONACO_ENVIRONMENT></script>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    view! {
        <Title text="Ferry"/>
        <Router>
            <header class="topbar">
                <a class="brand" href="/">"Ferry"</a>
                <span class="tagline">"Plan, preview and commit imports into Pulumi stacks"</span>
                <UserMenu/>
            </header>
            <main>
                <Routes fallback=NotFound>
                    <Route path=path!("/") view=HomePage/>
                    <Route path=path!("/signin") view=SignInPage/>
                    <Route path=path!("/account") view=AccountPage/>
                    <Route path=path!("/invitations/:token") view=InvitationPage ssr=SsrMode::Async/>
                    // Async: the whole page is rendered before the status is sent, so an
                    // unknown stack, plan, revision or link answers 404.
                    <Route path=path!("/stacks/:id") view=TablePage ssr=SsrMode::Async/>
                    <Route path=path!("/stacks/:id/graph") view=GraphPage ssr=SsrMode::Async/>
                    <Route path=path!("/stacks/:id/discover") view=DiscoverPage ssr=SsrMode::Async/>
                    <Route path=path!("/stacks/:id/plans") view=PlansPage ssr=SsrMode::Async/>
                    <Route path=path!("/plans/:id") view=PlanPage ssr=SsrMode::Async/>
                    <Route path=path!("/plans/:id/r/:rev") view=PlanPage ssr=SsrMode::Async/>
                    <Route path=path!("/shared/:token") view=PlanPage ssr=SsrMode::Async/>
                    <Route path=path!("/shared/:token/r/:rev") view=PlanPage ssr=SsrMode::Async/>
                </Routes>
            </main>
        </Router>
    }
}

#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(App);
    // Lets tests (and curious users) see that the page is interactive.
    if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
        let _ = body.set_attribute("data-hydrated", "true");
    }
}

//! A plan's options beside its source: the program's scope, the inputs an import gets, the
//! code's style and whether it leaves out defaults. Edited as one typed value, saved with the
//! source.

use ferry_types::plans::{CodeStyle, ImportStrategy, PlanOptions, PlanScope};
use leptos::prelude::*;

/// An option's value from its wire name (the `<option value>`); `None` for a name the page did
/// not offer.
fn from_wire<T: serde::de::DeserializeOwned>(name: String) -> Option<T> {
    use serde::de::IntoDeserializer;
    let name: serde::de::value::StringDeserializer<serde::de::value::Error> =
        name.into_deserializer();
    T::deserialize(name).ok()
}

#[component]
pub(super) fn PlanOptionsForm(
    options: RwSignal<PlanOptions>,
    is_program: bool,
    read_only: bool,
) -> impl IntoView {
    let scope_is = move |s: PlanScope| move || options.with(|o| o.scope == s);
    let strategy_is = move |s: ImportStrategy| move || options.with(|o| o.strategy == s);
    let style_is = move |s: CodeStyle| move || options.with(|o| o.code_style == s);
    view! {
        <div class="plan-options" id="plan-options">
            {is_program.then(|| view! {
                <label title="What the program stands for">"Scope: "
                    <select id="option-scope" disabled=read_only on:change=move |ev| {
                        if let Some(scope) = from_wire(event_target_value(&ev)) { options.update(|o| o.scope = scope) }
                    }>
                        <option value=PlanScope::Imports.as_str() selected=scope_is(PlanScope::Imports)>"imports: the rest of the stack stays untouched"</option>
                        <option value=PlanScope::WholeStack.as_str() selected=scope_is(PlanScope::WholeStack)>"whole stack: what the program leaves out is deleted"</option>
                    </select>
                </label>
            })}
            <label title="Which inputs an imported resource gets">"Inputs: "
                <select id="option-strategy" disabled=read_only on:change=move |ev| {
                    if let Some(strategy) = from_wire(event_target_value(&ev)) { options.update(|o| o.strategy = strategy) }
                }>
                    <option value=ImportStrategy::Read.as_str() selected=strategy_is(ImportStrategy::Read)>"what Read returns"</option>
                    <option value=ImportStrategy::Minimal.as_str() selected=strategy_is(ImportStrategy::Minimal)>"minimal (required, then what differs)"</option>
                </select>
            </label>
            <label>"Code: "
                <select id="option-code-style" disabled=read_only on:change=move |ev| {
                    if let Some(style) = from_wire(event_target_value(&ev)) { options.update(|o| o.code_style = style) }
                }>
                    <option value=CodeStyle::Cli.as_str() selected=style_is(CodeStyle::Cli)>"for resources already in the stack (protect)"</option>
                    <option value=CodeStyle::CodeFirst.as_str() selected=style_is(CodeStyle::CodeFirst)>"code-first (the import option)"</option>
                </select>
            </label>
            <label title="Leave out values that only repeat a schema default or an empty value Read returned">
                <input type="checkbox" id="option-elide" disabled=read_only prop:checked=move || options.with(|o| o.elide)
                    on:change=move |ev| options.update(|o| o.elide = event_target_checked(&ev))/>
                " leave out defaults"
            </label>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `<option value>`s the form offers read back as the options they name.
    #[test]
    fn every_offered_value_reads_back() {
        for scope in [PlanScope::Imports, PlanScope::WholeStack] {
            assert_eq!(from_wire::<PlanScope>(scope.as_str().to_string()), Some(scope));
        }
        for strategy in [ImportStrategy::Read, ImportStrategy::Minimal] {
            assert_eq!(from_wire::<ImportStrategy>(strategy.as_str().to_string()), Some(strategy));
        }
        for style in [CodeStyle::Cli, CodeStyle::CodeFirst] {
            assert_eq!(from_wire::<CodeStyle>(style.as_str().to_string()), Some(style));
        }
        assert_eq!(from_wire::<CodeStyle>("cobol".into()), None);
    }
}

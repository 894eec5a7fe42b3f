//! Components a prior state places resources in (a Terraform module call's instances): each
//! registered once, in state only, as a spec's components are.

use super::*;
use crate::deploy::options::PriorComponent;

impl<'a> Generator<'a> {
    /// Registers `components` (outermost first) that are not registered yet, at `seq` so each
    /// precedes in state the resource placed in it, and answers the innermost one's URN. One the
    /// stack already holds as a component stays as stored; one it holds as a custom resource is
    /// a step in error (the resource would become another's child).
    pub(crate) fn register_components(&self, seq: usize, components: &[PriorComponent]) -> String {
        let mut parent = self.root_urn.clone();
        for c in components {
            let urn = make_urn(
                self.ctx.stack,
                self.ctx.project,
                Some(parent.as_str()),
                &c.type_,
                &c.name,
            );
            if self.log.lock().components.insert(urn.clone()) {
                self.register_component(seq, &urn, c, &parent);
            }
            parent = urn;
        }
        parent
    }

    fn register_component(&self, seq: usize, urn: &str, c: &PriorComponent, parent: &str) {
        let mut step = Step::new(StepOp::Create, urn, &c.type_, &c.name);
        step.parent = Some(parent.to_string());
        match self.live.get(urn).copied() {
            Some(i) => {
                self.log.lock().claimed.insert(i, urn.to_string());
                step.op = StepOp::Same;
                if self.olds[i].is_custom() {
                    step.error = Some(format!(
                        "the stack's `{urn}` is a custom resource, not the component a prior state places resources in"
                    ));
                }
                self.log.record(seq, step);
                self.log.put(seq, ResourceState::kept(i));
            }
            None => {
                step.state_only = true;
                self.log.record(seq, step);
                let mut state = ResourceState::bare(urn.to_string(), c.type_.clone(), None);
                state.parent = Some(parent.to_string());
                self.log.put(seq, state);
            }
        }
    }
}

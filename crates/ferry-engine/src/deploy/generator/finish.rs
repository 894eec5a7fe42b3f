//! The end of a deployment: what the program no longer declares is deleted (or, with the
//! `imports` scope, kept as it is), and the steps and states come out in order.

use super::*;

impl<'a> Generator<'a> {
    /// Deletions: replaced resources, then everything the program no longer declares, in
    /// reverse dependency order. Returns the steps, the new states and whether anything ran.
    /// In the imports scope, what the program does not declare is kept as it is, without a
    /// step, and counted (the fourth value).
    pub async fn finish(
        &self,
        outputs: &PropertyMap,
    ) -> (Vec<Step>, Vec<ResourceState>, bool, usize) {
        let imports_scope = self.options.scope == crate::deploy::PlanScope::Imports;
        let end = usize::MAX / 2;
        let replaced: Vec<usize> = self.log.lock().replaced.clone();
        let replaced_set: HashSet<usize> = replaced.iter().copied().collect();
        let mut kept_olds: Vec<usize> = Vec::new();
        for &i in replaced.iter().rev() {
            let r = &self.olds[i];
            let mut step = Step::new(
                StepOp::DeleteReplaced,
                &r.urn,
                &r.type_,
                Urn::parse(&r.urn).map(|u| u.name).unwrap_or(""),
            );
            step.old_id = r.id.clone();
            step.state_only = r.external == Some(true)
                || r.extra.get("retainOnDelete").and_then(|v| v.as_bool()) == Some(true);
            if !self.execute_delete(i, &mut step).await {
                kept_olds.push(i);
            }
            self.log.push(end, step);
        }
        let (claimed, dbr_deleted) = {
            let s = self.log.lock();
            (s.claimed.clone(), s.dbr_deleted.clone())
        };
        // What the imports scope keeps, listed as the base lists it (below): a commit then
        // takes the base's packed runs of them whole (`snapshot::verbatim_position`). Kept in
        // the order of this loop, which deletes in reverse, they turned around on every commit.
        let mut untouched_olds = Vec::new();
        for (i, r) in self.olds.iter().enumerate().rev() {
            if claimed.contains_key(&i) || dbr_deleted.contains(&i) || replaced_set.contains(&i) {
                continue;
            }
            if imports_scope {
                untouched_olds.push(i);
                continue;
            }
            let mut step = Step::new(
                StepOp::Delete,
                &r.urn,
                &r.type_,
                Urn::parse(&r.urn).map(|u| u.name).unwrap_or(""),
            );
            step.old_id = r.id.clone();
            // Components, provider resources (the engine's own), external and retained
            // resources only leave the stack: no provider is asked to delete them.
            step.state_only = !r.is_custom()
                || r.is_provider()
                || r.external == Some(true)
                || r.extra.get("retainOnDelete").and_then(|v| v.as_bool()) == Some(true);
            if r.is_protected() {
                step.error = Some(format!("`{}` is protected: it cannot be deleted until `protect` is removed (it is no longer in the program)", r.urn));
            }
            if !self.execute_delete(i, &mut step).await {
                kept_olds.push(i);
            }
            self.log.push(end + 1, step);
        }
        let untouched = untouched_olds.len();
        let mut s = self.log.lock();
        s.steps.sort_by_key(|(k, _)| *k);
        s.states.sort_by_key(|(k, _)| *k);
        let steps: Vec<Step> = s.steps.drain(..).map(|(_, st)| st).collect();
        // What the imports scope keeps comes first, in the base's order (the loop above went
        // in reverse): ordered by dependencies, the new state is then the base's resources as
        // they were listed, with what the program adds after them.
        let kept = untouched_olds.iter().rev().map(|&i| ResourceState::kept(i));
        let mut states: Vec<ResourceState> =
            kept.chain(s.states.drain(..).map(|(_, st)| st)).collect();
        if let Some(root) = states.iter_mut().find(|st| st.urn == self.root_urn) {
            if imports_scope && root.base.is_some() {
                // An import snippet does not own the stack's outputs.
                root.verbatim = true;
            } else {
                root.outputs = outputs.clone();
            }
        }
        // Resources not deleted (failed or refused deletes) stay as they were.
        kept_olds.sort();
        for i in kept_olds {
            drop(s);
            self.keep_old(end + 2, i);
            s = self.log.lock();
            let (_, st) = s.states.pop().expect("just put");
            states.push(st);
        }
        let mutated = s.mutated;
        drop(s);
        (steps, crate::deploy::snapshot::dependency_order(states, self.olds), mutated, untouched)
    }
}

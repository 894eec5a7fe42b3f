//! What a generation has recorded: its steps and states, each keyed by its place in the
//! program's order, and the bookkeeping registrations share, behind one lock; progress is told
//! of each step as it is recorded.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use crate::deploy::step::{ImportStatus, ResourceState, Step};
use crate::progress::{JobEvent, Progress};

#[derive(Default)]
pub(super) struct GenState {
    pub counter: usize,
    pub steps: Vec<((usize, usize), Step)>,
    pub states: Vec<((usize, usize), ResourceState)>,
    /// Old state entries taken by a registration (by position), and by which URN.
    pub claimed: HashMap<usize, String>,
    /// Old resources a delete-before-replace already deleted (or, in previews, would).
    pub dbr_deleted: HashSet<usize>,
    /// Old resources replaced create-before-delete: deleted at the end.
    pub replaced: Vec<usize>,
    pub mutated: bool,
    /// An executed step failed: later mutations are not attempted.
    pub failed: bool,
    /// The URNs of components prior states place resources in, registered.
    pub components: HashSet<String>,
    /// Each planned import's status, by its position in the spec.
    pub planned: HashMap<usize, ImportStatus>,
}

pub(super) struct StepLog<'a> {
    state: Mutex<GenState>,
    progress: Option<&'a Progress>,
    /// An import deployment tells progress only of its entries (not of the stack's root or the
    /// default providers, which are no rows of a spec).
    planned_only: bool,
}

impl<'a> StepLog<'a> {
    pub fn new(progress: Option<&'a Progress>, planned_only: bool) -> StepLog<'a> {
        StepLog { state: Mutex::new(GenState::default()), progress, planned_only }
    }

    pub fn lock(&self) -> MutexGuard<'_, GenState> {
        self.state.lock().expect("generator state lock")
    }

    /// `step`, at `seq`, told to progress.
    pub fn push(&self, seq: usize, step: Step) {
        if let Some(p) = self.progress.filter(|_| !self.planned_only || step.spec_index.is_some()) {
            p.report(JobEvent {
                urn: step.urn.clone(),
                name: step.name.clone(),
                type_: step.type_.clone(),
                status: step.result_status(),
                message: step.error.clone().or_else(|| step.warnings.first().cloned()),
            });
        }
        self.record(seq, step);
    }

    /// A step kept without telling progress: a component a prior state places resources in is
    /// no resource of the program, which is what progress counts.
    pub fn record(&self, seq: usize, step: Step) {
        let mut s = self.lock();
        s.counter += 1;
        let key = (seq, s.counter);
        if let (Some(index), Some(status)) = (step.spec_index, step.status) {
            s.planned.insert(index, status);
        }
        s.steps.push((key, step));
    }

    /// A resource's state, at `seq`.
    pub fn put(&self, seq: usize, state: ResourceState) {
        let mut s = self.lock();
        s.counter += 1;
        let key = (seq, s.counter);
        s.states.push((key, state));
    }
}

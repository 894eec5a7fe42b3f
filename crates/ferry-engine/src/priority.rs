//! Engine work below interactive work in the operating system's scheduling. An import preview
//! keeps both of a small machine's cores busy for seconds (the run's own thread, the provider
//! plugins' processes); a server that runs it at its own priority makes every page wait behind
//! it. A [`Background`] priority is a Unix nice value some steps below the server's own: the
//! threads that drive engine runs and the plugin processes they launch take it, and the
//! kernel then gives the CPU to the server's request threads first, while the engine still
//! gets all of it when nobody else wants it.
//!
//! Linux keeps a nice value per thread, so one thread of the server can be lowered without
//! the rest; elsewhere only whole processes can, so there the threads keep the server's
//! priority and only plugin processes are lowered.

/// The nice value to run engine work at (`None`: the server's own, unchanged).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Background {
    nice: Option<i32>,
}

/// The lowest priority Unix has.
const LOWEST: i32 = 19;

impl Background {
    /// `steps` nice steps below the calling thread's own priority, at most down to the lowest
    /// (19); 0 is the caller's own priority, unchanged.
    pub fn below_current(steps: u8) -> Background {
        if steps == 0 {
            return Background::default();
        }
        let own = rustix::process::getpriority_process(None).unwrap_or(0);
        Background { nice: Some((own + i32::from(steps)).min(LOWEST)) }
    }

    /// The nice value engine work runs at, when it is lowered.
    pub fn nice(self) -> Option<i32> {
        self.nice
    }

    /// Moves the calling thread to this priority (Linux only; see the module). A thread may
    /// always lower its own priority; a failure is logged, never fatal: the work runs anyway.
    pub fn apply_to_this_thread(self) {
        #[cfg(target_os = "linux")]
        if let Some(nice) = self.nice {
            let thread = rustix::thread::gettid();
            if let Err(e) = rustix::process::setpriority_process(Some(thread), nice) {
                tracing::warn!(nice, error = %e, "could not lower an engine thread's priority");
            }
        }
    }

    /// Makes `command` start its process at this priority: set in the child before it runs
    /// the plugin's binary, so every thread the plugin starts inherits it.
    pub fn apply_to_child(self, command: &mut tokio::process::Command) {
        let Some(nice) = self.nice else { return };
        // SAFETY: the closure runs in the forked child before `exec`, where only
        // async-signal-safe calls are allowed: it makes one system call (`setpriority`) and
        // neither allocates nor takes a lock.
        unsafe {
            command.pre_exec(move || {
                rustix::process::setpriority_process(None, nice).map_err(std::io::Error::from)
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nice_of(pid: rustix::process::Pid) -> i32 {
        rustix::process::getpriority_process(Some(pid)).unwrap()
    }

    /// Steps count from the caller's own priority and stop at the lowest; none leaves it.
    #[test]
    fn steps_count_from_the_callers_priority_and_stop_at_the_lowest() {
        let own = rustix::process::getpriority_process(None).unwrap();
        assert_eq!(Background::below_current(0).nice(), None);
        assert_eq!(Background::below_current(5).nice(), Some((own + 5).min(LOWEST)));
        assert_eq!(Background::below_current(40).nice(), Some(LOWEST));
    }

    /// On Linux a lowered thread is that one thread: the rest of the process keeps its
    /// priority (the server's request threads must not be lowered with the engine's).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_lowered_thread_leaves_the_rest_of_the_process_as_it_was() {
        let before = rustix::process::getpriority_process(None).unwrap();
        let background = Background::below_current(7);
        let lowered = std::thread::spawn(move || {
            background.apply_to_this_thread();
            nice_of(rustix::thread::gettid())
        })
        .join()
        .unwrap();
        assert_eq!(Some(lowered), background.nice());
        assert_eq!(rustix::process::getpriority_process(None).unwrap(), before);
    }

    /// A plugin started at a background priority runs at it from its first instruction.
    #[tokio::test]
    async fn a_child_starts_at_the_background_priority() {
        let background = Background::below_current(3);
        // `ps` would do, but reading the child's own answer needs no other tool: the shell
        // prints the nice value the kernel keeps for it (field 19 of /proc/self/stat).
        let mut command = tokio::process::Command::new("/bin/sh");
        command.args(["-c", "cut -d' ' -f19 /proc/$$/stat"]);
        background.apply_to_child(&mut command);
        let out = command.output().await.unwrap();
        assert!(out.status.success(), "{out:?}");
        let nice: i32 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        assert_eq!(Some(nice), background.nice());
    }
}

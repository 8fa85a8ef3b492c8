//! The ids the service makes: a task's (time and a counter) and its actions' (the task's id and
//! the action's place in the plan).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Makes task ids: the time in nanoseconds and a counter, so two within one clock tick differ,
/// and a restart (a later time) makes none it made before.
#[derive(Debug, Default)]
pub(crate) struct TaskIds {
    counter: AtomicU64,
}

impl TaskIds {
    pub(crate) fn next(&self) -> String {
        let n = self.counter.fetch_add(1, Ordering::SeqCst);
        format!("t{:x}{n:x}", SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos()))
    }
}

/// The id of a task's `seq`th action: it names its task (the audit names screenshots by it).
pub(crate) fn action_id(task_id: &str, seq: usize) -> String {
    format!("{task_id}-a{seq}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_differ_and_an_action_id_names_its_task() {
        let ids = TaskIds::default();
        let (a, b) = (ids.next(), ids.next());
        assert!(a != b && a.starts_with('t'), "{a} {b}");
        assert_eq!(action_id(&a, 2), format!("{a}-a2"));
    }
}

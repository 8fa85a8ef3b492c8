//! What the console shows of the tasks: the latest ones with their status, and for one that
//! waits for the user, what waits, why, the page it is on and its latest screenshot.

use super::Machine;
use crate::audit::AuditLine;
use crate::model::TaskStatus;
use crate::service::store;
use crate::service::{ServiceError, TaskView, shown};

/// A task as the console shows it.
#[derive(Clone, Debug)]
pub struct TaskOverview {
    pub view: TaskView,
    pub goal: String,
    /// The page last reported (its URL and title), else the task's url.
    pub page: Option<(String, String)>,
    /// The latest screenshot's file name, beside the audit (for a task that waits for the user).
    pub screenshot: Option<String>,
    /// Why the pending action waits for the user, in words.
    pub why: Option<String>,
}

impl Machine {
    /// The `limit` tasks started last, newest first.
    pub(crate) fn overview(&self, limit: usize) -> Result<Vec<TaskOverview>, ServiceError> {
        let ids = self.store.read(|conn| store::recent_tasks(conn, limit))?;
        let mut tasks = Vec::with_capacity(ids.len());
        for task_id in ids {
            let mut view = self.status(&task_id)?;
            let (goal, task_url, observed) = self.store.read(|conn| {
                let (goal, url) = store::task_goal(conn, &task_id)?.unwrap_or_default();
                Ok::<_, ServiceError>((goal, url, store::last_observation(conn, &task_id)?))
            })?;
            let waiting = view.status == TaskStatus::WaitingConfirmation;
            let why = match (&view.pending_permission, &view.pending) {
                (Some(origin), _) => {
                    Some(format!("it changes a page on {origin}, a site you have not allowed the agent to act on"))
                }
                (None, Some(action)) if waiting => Some(
                    self.risk_on(observed.as_ref().map(|o| o.url.as_str()))
                        .why_high(action.kind, action.target.as_ref(), &action.params, observed.as_ref())
                        .unwrap_or_else(|| "the executor judged it high risk on the page as it was then".to_owned()),
                ),
                _ => None,
            };
            // Shown as the audit shows it: a password or a secret typed is not on the console either.
            view.pending = view.pending.map(|action| shown::audited_action(&action, observed.as_ref()));
            // Before any report, the page is the task's url, which the executor opens first.
            let page = observed.map(|o| (o.url, o.title)).or_else(|| task_url.map(|url| (url, String::new())));
            // Only a task that waits shows its screenshot: the others' audits are not read.
            let screenshot = if waiting { self.latest_screenshot(&task_id) } else { None };
            tasks.push(TaskOverview { screenshot, view, goal, page, why });
        }
        Ok(tasks)
    }

    /// The file name of the task's latest screenshot, if it has one. A line the audit cannot
    /// read (the torn end of a crash) is passed over: this is a view, not the record.
    fn latest_screenshot(&self, task_id: &str) -> Option<String> {
        let text = std::fs::read_to_string(self.audit.path(task_id)).ok()?;
        text.lines()
            .rev()
            .filter_map(|line| serde_json::from_str::<AuditLine>(line).ok())
            .find_map(|line| line.screenshots.and_then(|shots| shots.last().cloned()))
    }
}

//! The model's tasks: which need the model's next step, what the model is given to plan it, and
//! its step taken in as the task's next action.

use super::{Machine, status_of};
use crate::audit::{AuditEvent, AuditLine};
use crate::model::{Observation, PlanStep};
use crate::planner::{PastStep, PlanningRequest};
use crate::service::store::{self, ActionState};
use crate::service::{MODEL_STEP_LIMIT, ServiceError, shown};

impl Machine {
    /// The model's tasks (`task_id`, or any not in `except`) that are live and have no action
    /// open: each needs the model's next step.
    pub(crate) fn needing_a_step(&self, task_id: Option<&str>, except: &[String]) -> Result<Vec<String>, ServiceError> {
        let ids = self.store.read(store::model_tasks_without_a_step)?;
        Ok(ids.into_iter().filter(|id| task_id.is_none_or(|t| t == id) && !except.contains(id)).collect())
    }

    /// What the model is given to plan `task_id`'s next step: the goal, the steps so far with
    /// their outcomes (denials in words), the last observation; all as the audit keeps them.
    pub(crate) fn planning_request(&self, task_id: &str) -> Result<PlanningRequest, ServiceError> {
        self.store.read(|conn| {
            let (goal, url) =
                store::task_goal(conn, task_id)?.ok_or_else(|| ServiceError::NoSuchTask(task_id.to_owned()))?;
            let rows = store::actions_with_observations(conn, task_id)?;
            let mut steps = Vec::with_capacity(rows.len());
            let mut before: Option<Observation> = None;
            for (row, seen) in rows {
                let shown = shown::audited_action(&row.action, before.as_ref());
                let outcome = match row.state {
                    ActionState::Reported => "ran; the page after it was reported",
                    ActionState::Denied => "denied by the user: it did not run and must not be tried again",
                    ActionState::AwaitingConfirmation => "awaiting the user's confirmation",
                    ActionState::AwaitingPermission => "awaiting the user's permission to act on the site",
                    ActionState::NotPermitted => {
                        "not run: the user did not allow actions on this site; do not act on it again"
                    }
                    ActionState::Delivered | ActionState::Planned => "not run yet",
                };
                let errors =
                    seen.iter().flat_map(|o| &o.errors).map(|e| format!("{}: {}", e.code, e.message)).collect();
                steps.push(PastStep {
                    tool: shown.kind,
                    args: shown::args_as_told(&shown),
                    outcome: outcome.into(),
                    errors,
                });
                if seen.is_some() {
                    before = seen;
                }
            }
            let observation = store::last_observation(conn, task_id)?;
            let page = super::page_url(observation.as_ref(), url.as_deref());
            let skills = self.skills_for(&goal, observation.as_ref(), page);
            let tools = self.tools_on(page);
            Ok(PlanningRequest { goal, url, steps, observation, skills, tools })
        })
    }

    /// The model's step becomes the task's next action, unless one is open already (another
    /// `next` planned it first) or the task ended meanwhile. A step the task cannot take (past
    /// the step limit, or a target not in the contract's form) fails the task, saying why.
    pub(crate) fn add_step(&self, task_id: &str, step: &PlanStep) -> Result<(), ServiceError> {
        self.store.write(|tx| {
            if status_of(tx, task_id)?.is_final() || store::first_open(tx, task_id)?.is_some() {
                return Ok(());
            }
            let seq = store::count_actions(tx, task_id)?;
            if seq >= MODEL_STEP_LIMIT {
                let error = format!("the model planned {MODEL_STEP_LIMIT} steps without reaching the goal");
                return self.mark_failed(tx, task_id, &error);
            }
            if let Some(why) = self.tool_refused(tx, task_id, step.tool)? {
                return self.mark_failed(tx, task_id, &why);
            }
            let (target, params) = match step.target_and_params() {
                Ok(parts) => parts,
                Err(e) => return self.mark_failed(tx, task_id, &format!("the model's step: args.target: {e}")),
            };
            store::insert_action(tx, task_id, seq, step.tool, target.as_ref(), params)?;
            self.append(&AuditLine {
                step: Some(shown::plan_as_audited(std::slice::from_ref(step))),
                ..AuditLine::new(AuditEvent::Planned, task_id, None)
            })?;
            Ok(())
        })
    }
}

//! The skill library at work: the model planning a task is given the best skills for its goal
//! and page; on a page a skill's `sites` match, its `allowed-tools` narrow the tools the model
//! is offered (and a step with another tool is refused), and its `risk-words` join the risky
//! words.

use super::Machine;
use super::page_url;
use crate::model::{Observation, ToolName};
use crate::planner::{PLANNED, SkillBrief};
use crate::risk::RiskPolicy;
use crate::service::store;
use std::borrow::Cow;

/// The skills a model is given for one step.
const SKILLS_GIVEN: usize = 3;
/// The most of a skill's procedure the model is given, in characters.
const PROCEDURE_CHARS: usize = 2000;

impl Machine {
    /// The best skills for `goal` on the page (its title and host count too).
    pub(super) fn skills_for(&self, goal: &str, observed: Option<&Observation>, page: Option<&str>) -> Vec<SkillBrief> {
        let Some(skills) = &self.skills else { return Vec::new() };
        let host = page.and_then(|u| url::Url::parse(u).ok()).and_then(|u| u.host_str().map(str::to_owned));
        let query = [Some(goal), observed.map(|o| o.title.as_str()), host.as_deref()].into_iter().flatten();
        let query = query.collect::<Vec<_>>().join(" ");
        let hits = skills.search(&query, SKILLS_GIVEN).unwrap_or_else(|e| {
            tracing::warn!(target: "navguard::serve", "skills: the search failed: {e}");
            Vec::new()
        });
        hits.iter()
            .filter_map(|hit| skills.named(&hit.name))
            .map(|skill| SkillBrief {
                name: skill.front.name.clone(),
                description: skill.front.description.clone(),
                procedure: skill.body.chars().take(PROCEDURE_CHARS).collect(),
            })
            .collect()
    }

    /// The library's best `limit` skills for `query`: searched here, off the store thread (the
    /// index is read-only).
    pub(crate) fn search_skills(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<Vec<crate::skills::SkillHit>, crate::skills::SkillsError> {
        self.skills.as_ref().map_or(Ok(Vec::new()), |s| s.search(query, limit))
    }

    /// The tools the model is offered on `page`.
    pub(super) fn tools_on(&self, page: Option<&str>) -> Vec<ToolName> {
        match (&self.skills, page) {
            (Some(skills), Some(page)) => skills.tools_on(page, PLANNED),
            _ => PLANNED.to_vec(),
        }
    }

    /// Why the model's step with `tool` is refused on the task's page: a skill whose sites
    /// match it allows other tools. `None` without such a skill (any tool goes, as without a
    /// library).
    pub(super) fn tool_refused(
        &self,
        conn: &rusqlite::Connection,
        task_id: &str,
        tool: ToolName,
    ) -> Result<Option<String>, crate::service::ServiceError> {
        let Some(skills) = &self.skills else { return Ok(None) };
        let observed = store::last_observation(conn, task_id)?;
        let task_url = store::task_url(conn, task_id)?;
        let Some(page) = page_url(observed.as_ref(), task_url.as_deref()) else { return Ok(None) };
        if skills.tools_on(page, ToolName::ALL).contains(&tool) {
            return Ok(None);
        }
        Ok(Some(format!("the model's step: {tool} is not among the tools the skills of {page} allow")))
    }

    /// The risk policy on `page`: the words in force, and those of the skills of its site.
    pub(super) fn risk_on(&self, page: Option<&str>) -> Cow<'_, RiskPolicy> {
        let extra = match (&self.skills, page) {
            (Some(skills), Some(page)) => skills.risk_words_on(page),
            _ => Vec::new(),
        };
        if extra.is_empty() {
            return Cow::Borrowed(&self.risk);
        }
        Cow::Owned(RiskPolicy::with_words(self.risk.words.iter().chain(&extra)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{PlanStep, Risk, TaskStatus};
    use crate::service::ServiceOptions;
    use crate::skills::{FrontMatter, Skill, Skills};
    use serde_json::json;
    use std::sync::Arc;

    const SHOP: &str = "http://127.0.0.1:1";

    fn machine(dir: &std::path::Path, model_plans: bool) -> Machine {
        let skill = Skill {
            front: FrontMatter {
                name: "shop-checkout".into(),
                description: "Buy a book on the shop".into(),
                sites: vec![SHOP.into()],
                allowed_tools: Some(vec![ToolName::Navigate, ToolName::Click]),
                risk_words: vec!["continue".into()],
            },
            path: "shop/SKILL.md".into(),
            body: "Press Continue, then Place order.".into(),
        };
        let skills = Some(Arc::new(Skills::new(vec![skill]).unwrap()));
        Machine::open(dir, ServiceOptions { model_plans, skills, ..ServiceOptions::default() }).unwrap()
    }

    fn page_with_continue(url: &str) -> Observation {
        let elements = json!([{"selector": "#go", "role": "button", "tag": "button", "name": "Continue"}]);
        Observation {
            url: url.into(),
            extracted: json!({ "elements": elements }).as_object().cloned().unwrap(),
            ..Observation::default()
        }
    }

    #[test]
    fn the_model_is_given_the_skill_of_its_goal_and_only_the_tools_the_site_s_skill_allows() {
        let dir = tempfile::tempdir().unwrap();
        let machine = machine(dir.path(), true);
        let (task, _) = machine.start("buy a book", Some(&format!("{SHOP}/shop")), &[]).unwrap();
        let request = machine.planning_request(&task).unwrap();
        assert_eq!(request.skills.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["shop-checkout"]);
        assert_eq!(request.skills[0].procedure, "Press Continue, then Place order.");
        assert_eq!(request.tools, [ToolName::Navigate, ToolName::Click, ToolName::Done]);
        let told = serde_json::to_value(&request).unwrap();
        assert!(told.get("tools").is_none() && told["skills"][0]["name"] == "shop-checkout", "{told}");

        // A step with a tool the skill does not allow on its site fails the task, saying why.
        let typing = PlanStep {
            round: 0,
            tool: ToolName::Type,
            args: json!({"selector": "#q", "text": "x"}).as_object().cloned().unwrap(),
        };
        machine.add_step(&task, &typing).unwrap();
        let view = machine.status(&task).unwrap();
        assert_eq!(view.status, TaskStatus::Failed);
        assert_eq!(
            view.error.as_deref(),
            Some("the model's step: type is not among the tools the skills of http://127.0.0.1:1/shop allow")
        );

        // Elsewhere, every tool is offered.
        let (other, _) = machine.start("buy a book", Some("http://127.0.0.2:1/"), &[]).unwrap();
        assert_eq!(machine.planning_request(&other).unwrap().tools, PLANNED);
    }

    #[test]
    fn a_skill_s_risk_words_make_a_click_high_on_its_site_only() {
        let dir = tempfile::tempdir().unwrap();
        let machine = machine(dir.path(), false);
        let plan = |n| {
            vec![
                PlanStep { round: 1, tool: ToolName::Wait, args: json!({"ms": 1}).as_object().cloned().unwrap() },
                PlanStep {
                    round: n,
                    tool: ToolName::Click,
                    args: json!({"selector": "#go"}).as_object().cloned().unwrap(),
                },
            ]
        };
        for (url, risk) in [(format!("{SHOP}/shop"), Risk::High), ("http://127.0.0.2:1/shop".to_owned(), Risk::Low)] {
            let (task, _) = machine.start("go on", None, &plan(2)).unwrap();
            let (wait, _) = machine.next_except(Some(&task), &[]).unwrap();
            machine.report(&task, &wait.unwrap().action_id, &page_with_continue(&url)).unwrap();
            let (click, status) = machine.next_except(Some(&task), &[]).unwrap();
            let judged = click.map_or_else(|| machine.status(&task).unwrap().pending.unwrap().risk, |c| c.risk);
            assert_eq!(judged, risk, "{url}: {status:?}");
        }
        let overview = machine.overview(5).unwrap();
        let waiting = overview.iter().find(|t| t.view.status == TaskStatus::WaitingConfirmation).unwrap();
        assert_eq!(waiting.why.as_deref(), Some("its control is named \"Continue\", and \"continue\" is a risky word"));
    }
}

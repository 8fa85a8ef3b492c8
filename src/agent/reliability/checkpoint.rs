//! Checkpoints (docs/design/reliability-layer.md): what a paused task keeps so that it resumes where it stood, in this
//! agent or in a new one after a restart, and the difference between the page at the pause and
//! the page at the resume, told to the model.

use super::control::PauseReason;
use crate::agent::closed_loop::{Element, Observation};
use crate::agent::tools::TaskTabs;
use crate::store::{StoreError, TaskStore};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A paused task's state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The last round that ran before the pause; a resumed task goes on with the next.
    pub round: u32,
    pub reason: PauseReason,
    pub tabs: TaskTabs,
    /// The page as the model last saw it.
    pub observation: Option<Observation>,
    /// Its digest (equal digests: the same page as far as the model can tell).
    pub digest: Option<u64>,
    /// Segments run since the task was last allowed to go on.
    pub segments: u32,
    /// The round whose segment boundary was last counted.
    #[serde(default)]
    pub boundary: u32,
    /// The last segment's summary, not yet given to the model.
    #[serde(default)]
    pub summary: Option<String>,
}

/// Where checkpoints are kept (the task store, for a real agent).
pub trait Checkpoints: Send + Sync {
    /// Saves `checkpoint` durably before the pause is reported.
    fn save(&self, checkpoint: &Checkpoint) -> Result<(), StoreError>;
}

/// Checkpoints in the task store, under one task's id.
#[derive(Debug)]
pub struct StoredCheckpoints<'a> {
    pub store: &'a TaskStore,
    pub task_id: String,
}

impl StoredCheckpoints<'_> {
    /// The task's latest checkpoint, if it has one. A checkpoint this build cannot read is an
    /// error naming the task, not a silent fresh start.
    pub fn load(&self) -> Result<Option<Checkpoint>, StoreError> {
        let Some(body) = self.store.checkpoint(&self.task_id)? else { return Ok(None) };
        serde_json::from_str(&body)
            .map(Some)
            .map_err(|source| StoreError::BadCheckpoint { task_id: self.task_id.clone(), source })
    }
}

impl Checkpoints for StoredCheckpoints<'_> {
    fn save(&self, checkpoint: &Checkpoint) -> Result<(), StoreError> {
        let body = serde_json::to_string(checkpoint)
            .map_err(|source| StoreError::BadCheckpoint { task_id: self.task_id.clone(), source })?;
        self.store.save_checkpoint(&self.task_id, checkpoint.round, &body)
    }
}

/// What the user changed between the pause (`before`) and the resume (`after`), one sentence
/// each, every one beginning "the user changed".
pub(in crate::agent) fn changes(before: &Observation, after: &Observation) -> Vec<String> {
    let mut said = Vec::new();
    if before.url != after.url {
        said.push(format!("the user changed the URL from {:?} to {:?}", before.url, after.url));
    }
    if before.title != after.title {
        said.push(format!("the user changed the title from {:?} to {:?}", before.title, after.title));
    }
    let (old, new) = (by_selector(&before.elements), by_selector(&after.elements));
    for (selector, element) in &new {
        match old.get(selector) {
            Some(was) if was.value != element.value => said.push(format!(
                "the user changed the field {selector} from {:?} to {:?}",
                was.value.as_deref().unwrap_or_default(),
                element.value.as_deref().unwrap_or_default()
            )),
            Some(_) => {}
            None => said.push(format!("the user changed the page: added {}", describe(element))),
        }
    }
    for (selector, element) in &old {
        if !new.contains_key(selector) {
            said.push(format!("the user changed the page: removed {}", describe(element)));
        }
    }
    if said.is_empty() && before.text != after.text {
        said.push("the user changed the page's text".to_owned());
    }
    said
}

/// Elements by the selector that finds them (stable across snapshots, unlike refs).
fn by_selector(elements: &[Element]) -> BTreeMap<&str, &Element> {
    elements.iter().map(|e| (e.selector.as_str(), e)).collect()
}

fn describe(element: &Element) -> String {
    format!("{} {:?} ({})", element.role, element.name, element.selector)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::TabId;

    fn element(selector: &str, name: &str, value: Option<&str>) -> Element {
        Element {
            reference: "d1.1".parse().unwrap(),
            selector: selector.into(),
            tag: "input".into(),
            role: "textbox".into(),
            name: name.into(),
            text: String::new(),
            value: value.map(Into::into),
            form: None,
        }
    }

    fn page(url: &str, title: &str, elements: Vec<Element>) -> Observation {
        Observation {
            snapshot: "s1".into(),
            tab: TabId::from("t"),
            document: "d1".into(),
            url: url.into(),
            title: title.into(),
            text: String::new(),
            elements,
            dialog: None,
            frames: Vec::new(),
        }
    }

    #[test]
    fn names_the_url_title_fields_and_elements_the_user_changed() {
        let before =
            page("http://a.test/login", "Login", vec![element("#user", "User", Some("")), element("#inc", "+1", None)]);
        let after = page(
            "http://a.test/login?x",
            "Login again",
            vec![element("#user", "User", Some("bob")), element("#help", "Help", None)],
        );
        assert_eq!(
            changes(&before, &after),
            [
                "the user changed the URL from \"http://a.test/login\" to \"http://a.test/login?x\"",
                "the user changed the title from \"Login\" to \"Login again\"",
                "the user changed the page: added textbox \"Help\" (#help)",
                "the user changed the field #user from \"\" to \"bob\"",
                "the user changed the page: removed textbox \"+1\" (#inc)",
            ]
        );
    }

    #[test]
    fn an_unchanged_page_has_nothing_to_tell() {
        let p = page("http://a.test/", "A", vec![element("#q", "Q", Some("x"))]);
        assert!(changes(&p, &p.clone()).is_empty());
    }

    #[test]
    fn a_checkpoint_saved_in_the_store_is_loaded_back_and_replaced_by_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.db");
        let mut checkpoint = Checkpoint {
            round: 2,
            reason: PauseReason::User,
            tabs: TaskTabs::default(),
            observation: None,
            digest: None,
            segments: 0,
            boundary: 0,
            summary: Some("summary".into()),
        };
        {
            let store = TaskStore::open(&path).unwrap();
            let saved = StoredCheckpoints { store: &store, task_id: "t1".into() };
            saved.save(&checkpoint).unwrap();
            checkpoint.round = 4;
            saved.save(&checkpoint).unwrap();
        }
        let store = TaskStore::open(&path).unwrap();
        let loaded = StoredCheckpoints { store: &store, task_id: "t1".into() }.load().unwrap();
        assert_eq!(loaded, Some(checkpoint));
        assert_eq!(StoredCheckpoints { store: &store, task_id: "t2".into() }.load().unwrap(), None);
    }

    #[test]
    fn a_checkpoint_survives_json() {
        let checkpoint = Checkpoint {
            round: 3,
            reason: PauseReason::Question { question: "which one?".into() },
            tabs: TaskTabs::default(),
            observation: Some(page("http://a.test/", "A", vec![])),
            digest: Some(7),
            segments: 1,
            boundary: 0,
            summary: None,
        };
        let text = serde_json::to_string(&checkpoint).unwrap();
        let back: Checkpoint = serde_json::from_str(&text).unwrap();
        assert_eq!(back.reason, checkpoint.reason);
        assert_eq!(back.observation.map(|o| o.title), Some("A".into()));
    }
}

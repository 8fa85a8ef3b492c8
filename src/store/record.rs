//! A task's record and partial updates of it.

use serde::Serialize;

/// Where a task stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum TaskStatus {
    /// Created, no turn yet.
    Created,
    /// A turn is running or the task awaits the next one.
    Ongoing,
    /// The last turn succeeded.
    Done,
    /// The last turn stopped without success.
    Stopped,
    /// A status this build does not know (written by another version).
    Unknown(String),
}

impl TaskStatus {
    /// The stored text.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Created => "created",
            Self::Ongoing => "ongoing",
            Self::Done => "done",
            Self::Stopped => "stopped",
            Self::Unknown(s) => s,
        }
    }

    /// Parses the stored text.
    pub fn parse(text: &str) -> Self {
        match text {
            "created" => Self::Created,
            "ongoing" => Self::Ongoing,
            "done" => Self::Done,
            "stopped" => Self::Stopped,
            other => Self::Unknown(other.to_owned()),
        }
    }
}

/// One task's record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TaskRecord {
    /// The task id.
    pub task_id: String,
    /// Its title.
    pub title: String,
    /// Its status.
    pub status: TaskStatus,
    /// When it was created (ms since the epoch).
    pub created_at: i64,
    /// When it last changed (ms since the epoch).
    pub updated_at: i64,
    /// The browser client it uses.
    pub client_id: Option<String>,
    /// The URL its tab is on.
    pub current_url: Option<String>,
    /// Its tab.
    pub tab_id: Option<String>,
    /// Its tab group.
    pub group_id: Option<String>,
    /// Its window.
    pub window_id: Option<String>,
}

impl TaskRecord {
    /// A field by its name in the step language (`tab id`, `current url`, …), as text.
    pub fn field(&self, name: &str) -> Option<Option<String>> {
        let value = match name.trim().to_ascii_lowercase().replace(['_', '-'], " ").as_str() {
            "task id" => Some(self.task_id.clone()),
            "title" => Some(self.title.clone()),
            "status" => Some(self.status.as_str().to_owned()),
            "client" | "client id" => self.client_id.clone(),
            "current url" => self.current_url.clone(),
            "tab" | "tab id" => self.tab_id.clone(),
            "group" | "group id" => self.group_id.clone(),
            "window" | "window id" => self.window_id.clone(),
            _ => return None,
        };
        Some(value)
    }
}

/// One field of an update.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Field<T> {
    /// Keep the stored value.
    #[default]
    Keep,
    /// Store this value.
    Set(T),
    /// Empty the field.
    Clear,
}

impl<T> Field<T> {
    /// The SQL mode code (0 keep, 1 set, 2 clear) and value.
    pub(crate) fn parts(&self) -> (i64, Option<&T>) {
        match self {
            Self::Keep => (0, None),
            Self::Set(v) => (1, Some(v)),
            Self::Clear => (2, None),
        }
    }
}

/// A partial update: every field it does not mention keeps its value.
#[derive(Clone, Debug, Default)]
pub struct TaskUpdate {
    /// The title.
    pub title: Option<String>,
    /// The status.
    pub status: Option<TaskStatus>,
    /// The browser client.
    pub client_id: Field<String>,
    /// The current URL.
    pub current_url: Field<String>,
    /// The tab.
    pub tab_id: Field<String>,
    /// The tab group.
    pub group_id: Field<String>,
    /// The window.
    pub window_id: Field<String>,
}

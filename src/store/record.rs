//! A task's record and partial updates of it.

use serde::Serialize;

crate::closed_set! {
    /// The statuses this build writes.
    pub enum KnownStatus("task status") {
        /// Created, no turn yet.
        Created = "created",
        /// A turn is running or the task awaits the next one.
        Ongoing = "ongoing",
        /// The last turn succeeded.
        Done = "done",
        /// The last turn stopped without success.
        Stopped = "stopped",
    }
}

/// Where a task stands, as stored. Serialised as the stored text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskStatus {
    Known(KnownStatus),
    /// A status this build does not know (written by another version), kept as it is.
    Unknown(String),
}

impl TaskStatus {
    /// The stored text.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Known(status) => status.name(),
            Self::Unknown(s) => s,
        }
    }

    /// Parses the stored text.
    pub fn parse(text: &str) -> Self {
        text.parse().map_or_else(|_| Self::Unknown(text.to_owned()), Self::Known)
    }
}

impl From<KnownStatus> for TaskStatus {
    fn from(status: KnownStatus) -> Self {
        Self::Known(status)
    }
}

impl Serialize for TaskStatus {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One task's record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TaskRecord {
    pub task_id: String,
    pub title: String,
    pub status: TaskStatus,
    /// When it was created (ms since the epoch).
    pub created_at: i64,
    /// When it last changed (ms since the epoch).
    pub updated_at: i64,
    /// The browser client it uses.
    pub client_id: Option<String>,
    /// The URL its tab is on.
    pub current_url: Option<String>,
    pub tab_id: Option<String>,
    pub group_id: Option<String>,
    pub window_id: Option<String>,
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
    pub title: Option<String>,
    pub status: Option<TaskStatus>,
    pub client_id: Field<String>,
    pub current_url: Field<String>,
    pub tab_id: Field<String>,
    pub group_id: Field<String>,
    pub window_id: Field<String>,
}

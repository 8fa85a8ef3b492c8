//! The tools the model may call: what each is ([`Tool`], and [`ToolName`] derived from it),
//! one table of what is known of each (its description and argument schema for a model API,
//! its parser, whether it is input, creates a tab, needs the page, may be retried, its risk),
//! the strict readers its arguments are parsed with, its execution, and how a call fails.
//!
//! A new tool is written in these files and nowhere else: the compiler asks for its entry in
//! the table and its execution, and the parser, the tool sets, the watchdog's retries and the
//! model's tool list all derive from the table.

mod args;
mod controls;
mod error;
mod execute;
mod input;
mod note;
mod parse;
mod parsers;
mod pointer;
mod reading;
mod spec;
mod tabs;
mod tool;

pub use error::FailureKind;
pub use note::Note;
pub use spec::{Offered, RefArg, Repeat, RiskHint, ToolSpec, model_tools};
pub use tabs::{Pinned, TaskTabs};
pub use tool::{ToolName, ToolSet};

pub(super) use error::{Refusal, ToolError, ToolFailure};
pub(super) use execute::{ToolContext, ToolRun, ToolSettings};
pub(super) use parse::{Call, parse_call, parse_name};
pub(super) use tool::Tool;

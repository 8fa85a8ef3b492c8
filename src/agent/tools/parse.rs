//! A model's call checked against the tool table: the tool it names, its arguments read by that
//! tool's parser ([`ToolName::spec`]), and what it expects of the page after it.

use super::args::Args;
use super::error::{ToolError, ToolFailure};
use super::tool::{Tool, ToolName};
use crate::agent::closed_loop::Expectation;
use serde_json::{Map, Value};

/// The tool a call names; an unknown name is [`ToolError::UnknownTool`].
pub(in crate::agent) fn parse_name(name: &str) -> Result<ToolName, ToolError> {
    name.parse().map_err(|_| ToolError::UnknownTool { name: name.to_owned() })
}

/// A checked call: the tool, and what the model expects of the page after it.
#[derive(Clone, Debug, PartialEq)]
pub(in crate::agent) struct Call {
    pub tool: Tool,
    pub expect: Option<Expectation>,
}

/// Checks the arguments of a call of `tool`, `expect` included. A missing `args` counts as
/// `{}`.
pub(in crate::agent) fn parse_call(tool: ToolName, args: &Value) -> Result<Call, ToolError> {
    let expect = match args.get("expect") {
        None | Some(Value::Null) => None,
        Some(value) => Some(Expectation::parse(value).map_err(|source| ToolFailure::BadExpect { source }.of(tool))?),
    };
    Ok(Call { tool: parse_args(tool, args)?, expect })
}

/// Checks the arguments of a call of `tool` (`expect` aside: see [`parse_call`]) with the
/// tool's parser in the tool table. A missing `args` counts as `{}`.
pub(super) fn parse_args(tool: ToolName, args: &Value) -> Result<Tool, ToolError> {
    let empty = Map::new();
    let map = match args {
        Value::Object(map) => map,
        Value::Null => &empty,
        other => return Err(ToolFailure::ArgsNotObject { got: other.to_string() }.of(tool)),
    };
    (tool.spec().parse)(&Args::new(tool, map))
}

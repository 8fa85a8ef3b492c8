//! Reading a call's JSON arguments, strictly: each reader names the argument it could not use
//! and what it expected. The tool table's parsers ([`ToolName::spec`]) are written with them.

use super::error::{ToolError, ToolFailure};
use super::tabs::TabRef;
use super::tool::ToolName;
use crate::browser::{ElementRef, Target};
use serde_json::{Map, Value};
use std::time::Duration;

/// The arguments of one call of `tool`.
#[derive(Debug)]
pub(crate) struct Args<'a> {
    tool: ToolName,
    map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    pub(crate) fn new(tool: ToolName, map: &'a Map<String, Value>) -> Self {
        Self { tool, map }
    }

    /// The tool whose arguments these are.
    pub(crate) fn tool(&self) -> ToolName {
        self.tool
    }

    /// The argument as it came, `null` included.
    pub(crate) fn raw(&self, arg: &str) -> Option<&'a Value> {
        self.map.get(arg)
    }

    /// The argument, if it was given (`null` is not).
    pub(crate) fn given(&self, arg: &str) -> Option<&'a Value> {
        self.raw(arg).filter(|v| !v.is_null())
    }

    pub(crate) fn fail(&self, kind: ToolFailure) -> ToolError {
        kind.of(self.tool)
    }

    pub(crate) fn missing(&self, arg: &'static str) -> ToolError {
        self.fail(ToolFailure::MissingArg { arg })
    }

    pub(crate) fn bad(&self, arg: &'static str, expected: &'static str, got: &Value) -> ToolError {
        self.fail(ToolFailure::BadArg { arg, expected, got: got.to_string() })
    }

    /// A string with something in it.
    pub(crate) fn string(&self, arg: &'static str) -> Result<String, ToolError> {
        match self.given(arg) {
            None => Err(self.missing(arg)),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(other) => Err(self.bad(arg, "a non-empty string", other)),
        }
    }

    /// A string, empty or not.
    pub(crate) fn text(&self, arg: &'static str) -> Result<String, ToolError> {
        match self.given(arg) {
            None => Err(self.missing(arg)),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(self.bad(arg, "a string", other)),
        }
    }

    /// A non-empty list of non-empty strings; one string is taken as a list of one.
    pub(crate) fn strings(&self, arg: &'static str, expected: &'static str) -> Result<Vec<String>, ToolError> {
        let non_empty = |v: &Value| v.as_str().is_some_and(|s| !s.is_empty());
        match self.given(arg) {
            None => Err(self.missing(arg)),
            Some(Value::String(one)) if !one.is_empty() => Ok(vec![one.clone()]),
            Some(Value::Array(list)) if !list.is_empty() && list.iter().all(non_empty) => {
                Ok(list.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            }
            Some(other) => Err(self.bad(arg, expected, other)),
        }
    }

    /// A boolean; `default` when not given.
    pub(crate) fn flag(&self, arg: &'static str, default: bool) -> Result<bool, ToolError> {
        match self.given(arg) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(self.bad(arg, "true or false", other)),
        }
    }

    /// A tab reference, as a string or a number (a tab id).
    pub(crate) fn tab(&self, arg: &'static str, value: &Value) -> Result<TabRef, ToolError> {
        let parsed = match value {
            Value::String(s) => TabRef::parse(s),
            Value::Number(n) => TabRef::parse(&n.to_string()),
            _ => None,
        };
        parsed
            .ok_or_else(|| self.bad(arg, "a tab reference (@primary, @opened, @opened#N, @active or a tab id)", value))
    }

    /// `ref` (from an observation) or `selector` (CSS): exactly one of them.
    pub(crate) fn target(&self) -> Result<Target, ToolError> {
        match (self.given("ref"), self.given("selector")) {
            (Some(_), Some(_)) => Err(self.fail(ToolFailure::RefAndSelector)),
            (Some(Value::String(text)), None) => text
                .parse::<ElementRef>()
                .map(Target::Ref)
                .map_err(|source| self.fail(ToolFailure::MalformedRef { source })),
            (Some(other), None) => Err(self.bad("ref", "a ref from the observation, as a string", other)),
            (None, _) => self.string("selector").map(Target::Css).map_err(|e| match e {
                ToolError::Call { kind: ToolFailure::MissingArg { .. }, .. } => self.fail(ToolFailure::NoTarget),
                other => other,
            }),
        }
    }

    /// The element a call names by `ref` or `selector`, if it names one (`None` when neither
    /// is given).
    pub(crate) fn optional_target(&self) -> Result<Option<Target>, ToolError> {
        match (self.given("ref"), self.given("selector")) {
            (None, None) => Ok(None),
            _ => self.target().map(Some),
        }
    }

    /// An element written as one string: a ref as the observation gives it, else a CSS
    /// selector (no selector has a ref's form: a class cannot begin with a digit).
    pub(crate) fn ref_or_selector(&self, arg: &'static str, value: &Value) -> Result<Target, ToolError> {
        match value {
            Value::String(text) if !text.trim().is_empty() => {
                Ok(text.parse::<ElementRef>().map_or_else(|_| Target::Css(text.clone()), Target::Ref))
            }
            other => Err(self.bad(arg, "a ref from the observation or a CSS selector, as a string", other)),
        }
    }

    /// A name from a closed set, or `default` when not given.
    pub(crate) fn choice<T: std::str::FromStr + Copy>(
        &self,
        arg: &'static str,
        default: T,
        expected: &'static str,
    ) -> Result<T, ToolError> {
        match self.given(arg) {
            None => Ok(default),
            Some(Value::String(name)) => {
                name.parse().map_err(|_| self.bad(arg, expected, &Value::String(name.clone())))
            }
            Some(other) => Err(self.bad(arg, expected, other)),
        }
    }

    /// A duration in whole milliseconds, from 1 to `max`; `default` when not given.
    pub(crate) fn millis(
        &self,
        arg: &'static str,
        default: Duration,
        max: Duration,
        expected: &'static str,
    ) -> Result<Duration, ToolError> {
        match self.given(arg) {
            None => Ok(default),
            Some(value) => match value.as_u64().map(Duration::from_millis) {
                Some(d) if !d.is_zero() && d <= max => Ok(d),
                _ => Err(self.bad(arg, expected, value)),
            },
        }
    }

    /// A URL that parses (trimmed).
    pub(crate) fn url(&self, arg: &'static str) -> Result<String, ToolError> {
        let url = self.string(arg)?;
        match url::Url::parse(url.trim()) {
            Ok(_) => Ok(url.trim().to_owned()),
            Err(reason) => Err(self.fail(ToolFailure::BadUrl { url, reason })),
        }
    }
}

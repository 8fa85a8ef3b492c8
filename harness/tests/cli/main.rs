//! The `navguard` command as a user runs it: its outputs and exit codes, on good input and on
//! bad (a clear message and a non-zero exit, never a hang). One module per subject; nextest
//! knows the binary as `cli` (.config/nextest.toml).

mod args;
mod elsewhere;
mod gate;
mod one_browser;
mod repro;
mod run;
mod site;
mod support;
mod validate;

//! `navguard-site`: the fixture site served alone, for a person writing a feature or reproducing
//! a race by hand in their own browser. It serves both origins on loopback, prints their URLs and
//! the routes, and serves until Ctrl-C or SIGTERM, releasing every held response on the way out.
//!
//! Two flags, parsed by hand (clap would be most of the binary): `--port N` fixes the first
//! origin's port (the second takes any free one), `--help`. Exit codes: 0 after a clean stop, 2
//! when the site could not start (a bad flag, a port that is taken), 1 when its URLs could not
//! be printed or the stop signals not listened for.

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

const USAGE: &str = "usage: navguard-site [--port N]";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    /// Serve, the first origin on this port (0: any free port).
    Serve {
        port: u16,
    },
    Help,
}

/// A command line that does not parse; each says what was expected.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum ArgError {
    #[error("unknown argument `{0}` ({USAGE})")]
    Unknown(String),
    #[error("--port needs a value: a port number from 0 to 65535")]
    MissingPort,
    #[error("--port: expected a port number from 0 to 65535, got {0:?}")]
    BadPort(String),
    #[error("--port is given twice")]
    PortTwice,
}

fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, ArgError> {
    let mut args = args.into_iter();
    let mut port = None;
    while let Some(arg) = args.next() {
        let arg = arg.to_string_lossy().into_owned();
        let value = match arg.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--port" => args.next().ok_or(ArgError::MissingPort)?.to_string_lossy().into_owned(),
            _ => match arg.strip_prefix("--port=") {
                Some(value) => value.to_owned(),
                None => return Err(ArgError::Unknown(arg)),
            },
        };
        let parsed = value.parse::<u16>().map_err(|_| ArgError::BadPort(value))?;
        if port.replace(parsed).is_some() {
            return Err(ArgError::PortTwice);
        }
    }
    Ok(Command::Serve { port: port.unwrap_or(0) })
}

fn main() -> ExitCode {
    let port = match parse(std::env::args_os().skip(1)) {
        Ok(Command::Serve { port }) => port,
        Ok(Command::Help) => {
            let help =
                format!("{USAGE}\nServes navguard's fixture site on two loopback origins until Ctrl-C or SIGTERM.");
            return if writeln!(std::io::stdout(), "{help}").is_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE };
        }
        Err(e) => {
            eprintln!("navguard-site: {e}");
            return ExitCode::from(2);
        }
    };
    // One thread is plenty for a site a person browses by hand.
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("navguard-site: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(navguard_fixtures::serve_by_hand(port, "navguard-site"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(args: &[&str]) -> Result<Command, ArgError> {
        parse(args.iter().map(OsString::from))
    }

    #[test]
    fn no_flag_serves_on_any_free_port() {
        assert_eq!(parse_str(&[]), Ok(Command::Serve { port: 0 }));
    }

    #[test]
    fn a_port_is_taken_in_either_spelling() {
        assert_eq!(parse_str(&["--port", "8080"]), Ok(Command::Serve { port: 8080 }));
        assert_eq!(parse_str(&["--port=8081"]), Ok(Command::Serve { port: 8081 }));
    }

    #[test]
    fn help_wins_over_anything_after_it() {
        assert_eq!(parse_str(&["--help", "--bogus"]), Ok(Command::Help));
        assert_eq!(parse_str(&["-h"]), Ok(Command::Help));
    }

    #[test]
    fn bad_flags_say_what_was_expected() {
        assert_eq!(parse_str(&["--bogus"]), Err(ArgError::Unknown("--bogus".to_owned())));
        assert_eq!(parse_str(&["--port"]), Err(ArgError::MissingPort));
        assert_eq!(parse_str(&["--port", "65536"]), Err(ArgError::BadPort("65536".to_owned())));
        assert_eq!(parse_str(&["--port=-1"]), Err(ArgError::BadPort("-1".to_owned())));
        assert_eq!(parse_str(&["--port", "1", "--port", "2"]), Err(ArgError::PortTwice));
        assert_eq!(
            ArgError::BadPort("x".to_owned()).to_string(),
            "--port: expected a port number from 0 to 65535, got \"x\""
        );
    }
}

#!/usr/bin/env bash
# The test command (about 15 minutes on 2 cores once set up; docs/running.md has each part's
# time): the unit and doc tests, the examples, the CLI and report tests, the adapter tests on
# both browsers, the orchestrator and executor, the MCP server under real clients, the JSON-lines
# agent protocol, one representative scenario through each agent under test (each leaves no
# process behind), and a representative set through a real Selenium Grid (hub and two nodes on
# loopback) on both browsers. Every feature on both browsers, and each agent's whole suite, is
# the main job's (ci/conformance.sh); `cargo test --test features` runs the features here too.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh chromium firefox grid agents reports
# geckodriver is installed by cargo.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
cargo test --locked "$@"

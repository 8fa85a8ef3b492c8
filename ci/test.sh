#!/usr/bin/env bash
# The test command: unit tests, the adapter tests (on both browsers) and CLI tests, every
# feature on real Chromium (the gate runs them on Firefox too), and a representative set through
# a real Selenium Grid (hub and two nodes on loopback) on both browsers.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh chromium firefox grid agents reports
# geckodriver is installed by cargo.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
cargo test --locked "$@"

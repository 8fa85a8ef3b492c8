#!/usr/bin/env bash
# The test command: unit tests, the adapter tests (on both browsers) and CLI tests, every
# feature on real Chromium (the gate runs them on Firefox too), and a representative set through
# a real Selenium Grid (hub and two nodes on loopback) on both browsers; then the install packages,
# built and installed as users install them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh chromium firefox grid agents reports
# geckodriver is installed by cargo.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
cargo test --locked "$@"
# The install packages (a wheel, npm's launcher and per-platform package), built from this clone
# and used as users install them: into fresh places, with no Rust toolchain on the PATH.
bash ci/package.sh
bash ci/package-check.sh

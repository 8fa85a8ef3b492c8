#!/usr/bin/env bash
# The test command: unit tests, the adapter tests (on both browsers) and CLI tests, and every
# feature on real Chromium (the gate runs them on Firefox too).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh chromium firefox
# geckodriver is installed by cargo.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
cargo test --locked "$@"

#!/usr/bin/env bash
# The test command: unit tests, the adapter and CLI tests, and every feature on real Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
cargo test --locked "$@"

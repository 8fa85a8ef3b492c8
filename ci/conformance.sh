#!/usr/bin/env bash
# The main job: the conformance run on real Chromium as the release gate, with its report
# (terminal summary and metrics, target/navguard/gate/run-N/{junit.xml,cucumber.json},
# failure artifacts). Options pass through: ci/conformance.sh --repeat 3, --shard 1/2, -- --tags @agent
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
cargo run --locked --release --quiet -- validate
cargo run --locked --release --quiet -- gate "$@"

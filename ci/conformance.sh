#!/usr/bin/env bash
# The main job: the conformance run on real Chromium, with its report
# (terminal summary, target/navguard/junit.xml, failure artifacts under target/navguard/artifacts).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
cargo run --locked --release --quiet -- run features "$@"

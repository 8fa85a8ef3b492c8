#!/usr/bin/env bash
# The main job: the conformance run as the release gate, on each browser in NAVGUARD_BROWSERS
# (default: chromium firefox), with its reports: the terminal summary and metrics, and per
# browser target/navguard/gate/<browser>/index.html (metrics, thresholds, failures) and run-N/
# (report.html, junit.xml, cucumber.json, failure artifacts). Options pass through to the
# gate: ci/conformance.sh --repeat 3, --shard 1/2, --tags @agent
set -euo pipefail
cd "$(dirname "$0")/.."
read -r -a browsers <<< "${NAVGUARD_BROWSERS:-chromium firefox}"
bash ci/setup.sh "${browsers[@]}"
# geckodriver is installed by cargo.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
cargo run --locked --release --quiet -- validate
status=0
for browser in "${browsers[@]}"; do
  cargo run --locked --release --quiet -- gate --browser "$browser" "$@" || status=1
done
exit $status

#!/usr/bin/env bash
# The main job: the conformance run as the release gate, on each browser in NAVGUARD_BROWSERS
# (default: chromium firefox), then the agent-neutral suite through agents under test (navguard's
# MCP server on each browser; Playwright MCP and the JSON-lines example adapter on Chromium), each
# judged by its own gate, with their reports: the terminal summary and metrics, and per gate
# target/navguard/gate/<browser or agent-name-browser>/index.html (metrics, thresholds,
# failures) and run-N/ (report.html, junit.xml, cucumber.json, failure artifacts). A scenario
# that fails is run again, twice at most (--rerun 2): one that then passes is flaky and fails its
# gate. Options pass through to every gate: ci/conformance.sh --repeat 3, --tags @agent.
# One release build (cargo's target folder, CARGO_TARGET_DIR if set) serves every gate.
set -euo pipefail
cd "$(dirname "$0")/.."
read -r -a browsers <<< "${NAVGUARD_BROWSERS:-chromium firefox}"
bash ci/setup.sh "${browsers[@]}" agents
# geckodriver is installed by cargo.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
cargo build --locked --release -p navguard-harness --bin navguard
navguard="${CARGO_TARGET_DIR:-$PWD/target}/release/navguard"
"$navguard" validate

status=0
gate() {
  echo
  echo "ci/conformance.sh: navguard gate $*"
  "$navguard" gate --rerun 2 "$@" || status=1
}
for browser in "${browsers[@]}"; do
  gate --browser "$browser" "$@"
done
for browser in "${browsers[@]}"; do
  gate --agent navguard-mcp --browser "$browser" "$@"
done
# These drive Chromium only (Playwright MCP's own launch; the example adapter's browser).
if [[ " ${browsers[*]} " == *" chromium "* ]]; then
  gate --agent playwright-mcp --browser chromium "$@"
  gate --agent agents/jsonl-example/agent.toml --browser chromium "$@"
fi
exit $status

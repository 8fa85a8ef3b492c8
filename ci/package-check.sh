#!/usr/bin/env bash
# Installs the packages ci/package.sh built (target/dist/) as a Python or TypeScript engineer
# would, each into a fresh place, with no Rust toolchain on the PATH, and uses the installed
# command from an empty folder:
#   the wheel     into a new virtual environment (pip install of the file, nothing else)
#   npm's two     into an empty folder with its own package.json (npm install of the files)
# then, for each: `navguard --version`, `navguard validate` of a feature, `navguard run` of it on
# Chromium, `navguard mcp` answering an MCP client's initialize, and a machine with no browser
# driver on its PATH getting one line and exit 2. Needs what `ci/setup.sh chromium agents`
# installs (Chromium and its driver, Python 3 with venv, npm).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
dist="$repo/target/dist"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)"
wheel="$(ls "$dist"/navguard-"$version"-*.whl)"
launcher="$dist/navguard-$version.tgz"
platform="$dist/navguard-linux-x64-$version.tgz"

# The PATH of a machine without Rust: every folder that holds cargo or rustc is left out.
no_rust_path=""
IFS=: read -r -a folders <<<"$PATH"
for folder in "${folders[@]}"; do
  if [ -n "$folder" ] && [ ! -e "$folder/cargo" ] && [ ! -e "$folder/rustc" ]; then
    no_rust_path="${no_rust_path:+$no_rust_path:}$folder"
  fi
done
if PATH="$no_rust_path" command -v cargo >/dev/null || PATH="$no_rust_path" command -v rustc >/dev/null; then
  echo "ci/package-check.sh: cargo or rustc is still on the PATH it made" >&2
  exit 1
fi

places="$(mktemp -d)"
trap 'rm -rf "$places"' EXIT
# A PATH with node alone (npm's launcher is a node script), and no browser or driver.
only_node="$places/only-node"
mkdir -p "$only_node"
ln -s "$(command -v node)" "$only_node/node"
fail() {
  echo "ci/package-check.sh: $1" >&2
  exit 1
}

# One feature of the step language, in a folder of its own: what a user's repository holds
# (navguard's own core is the agent under test when the run names none).
feature() {
  cat >"$1/smoke.feature" <<'EOF'
Feature: Installed navguard
  Scenario: A click on a link to a slow page answers with the new page
    Given the agent under test is on "{site}/page?title=Home&go=/slow?delay=500%26title=Next"
    When the agent under test is called:
      | call | tool     | args                |
      | 1    | snapshot | {}                  |
      | 2    | click    | {"ref": "{ref:go}"} |
    Then call 2 answered with the page titled "Next"
    And the fixture site served "/slow" 1 time
EOF
}

# Uses the command `$1` (a path, or a command line) from an empty folder, with `$2` the PATH.
check() {
  local how="$1" path="$2" what="$3"
  local here="$places/use-$what"
  mkdir -p "$here"
  cd "$here"
  feature "$here"
  local said
  said="$(PATH="$path" $how --version)" || fail "$what: navguard --version failed"
  [ "$said" = "navguard $version" ] || fail "$what: navguard --version said '$said', not 'navguard $version'"
  PATH="$path" $how validate smoke.feature >/dev/null || fail "$what: navguard validate failed"
  PATH="$path" $how run smoke.feature >run.txt 2>&1 || { cat run.txt; fail "$what: navguard run failed"; }
  grep -q "1 passed" run.txt || { cat run.txt; fail "$what: navguard run did not pass its scenario"; }
  [ -f target/navguard/report.html ] && [ -f target/navguard/junit.xml ] || fail "$what: navguard run wrote no report"
  local initialize='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}'
  said="$(printf '%s\n' "$initialize" | PATH="$path" timeout 60 $how mcp 2>/dev/null | head -n 1)"
  case "$said" in
    *'"id":1'*'"serverInfo":{"name":"navguard"'*) ;;
    *) fail "$what: navguard mcp answered initialize with: $said" ;;
  esac
  # A machine without the browser's driver: one line naming it and how to get it, exit 2.
  local status=0
  PATH="$only_node" $how run smoke.feature >missing.txt 2>&1 || status=$?
  [ "$status" = 2 ] || { cat missing.txt; fail "$what: without a driver, navguard run exited $status, not 2"; }
  [ "$(wc -l <missing.txt)" = 1 ] && grep -q "chromedriver not found" missing.txt ||
    { cat missing.txt; fail "$what: without a driver, navguard run did not say so in one line"; }
  echo "ci/package-check.sh: $what: --version, validate, run on Chromium, mcp initialize, a missing driver: ok"
  cd "$repo"
}

# The wheel, into a new virtual environment.
python3 -m venv "$places/venv"
"$places/venv/bin/pip" install --quiet --disable-pip-version-check --no-index --no-deps "$wheel"
check "$places/venv/bin/navguard" "$no_rust_path" wheel

# npm's packages, into an empty project of its own, from the files only.
mkdir -p "$places/project"
(cd "$places/project" && npm init -y >/dev/null &&
  PATH="$no_rust_path" npm install --offline --no-audit --no-fund --silent "$platform" "$launcher")
check "$places/project/node_modules/.bin/navguard" "$no_rust_path" npm

#!/usr/bin/env bash
# Moves the pins of the agents under test forward to their newest releases, in one command:
#   bash ci/update-agents.sh            every agent
#   bash ci/update-agents.sh vibium     the named ones (npm or PyPI package names)
# npm packages (agents/package.json and the JSON-lines adapters' package.json files) are pinned
# to an exact version and their lock files rewritten; browser-use's requirements file is compiled
# again with every hash (uv, installed for the occasion in a throwaway environment). Then it
# installs what it pinned (ci/setup.sh agents). Review the diff, run
# `navguard compare --agents …` (it prints the versions it ran), and commit the pins with the
# table they produced.
set -euo pipefail
cd "$(dirname "$0")/.."
only=("$@")
wanted() { [ ${#only[@]} -eq 0 ] || printf '%s\n' "${only[@]}" | grep -qx -- "$1"; }

for dir in agents agents/jsonl-example agents/stagehand; do
  for package in $(node -e 'console.log(Object.keys(require("./'"$dir"'/package.json").dependencies).join(" "))'); do
    if wanted "$package"; then
      latest="$(npm view "$package" version)"
      echo "ci/update-agents.sh: $dir: $package -> $latest"
      (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts --save-exact --silent "$package@$latest")
    fi
  done
done

if wanted browser-use; then
  latest="$(python3 -m pip index versions browser-use 2>/dev/null | sed -n 's/^browser-use (\(.*\))$/\1/p')"
  echo "ci/update-agents.sh: agents/browser-use: browser-use -> $latest"
  echo "browser-use[cli]==$latest" > agents/browser-use/requirements.in
  tools="$(mktemp -d)"
  trap 'rm -rf "$tools"' EXIT
  python3 -m venv "$tools"
  "$tools/bin/pip" install --quiet --disable-pip-version-check uv
  (cd agents/browser-use && "$tools/bin/uv" pip compile --quiet --generate-hashes --python-version 3.11 \
    requirements.in -o requirements.txt)
fi

bash ci/setup.sh agents

#!/usr/bin/env bash
# Installs what the harness needs on a Debian machine, when it is missing:
# Chromium and ChromeDriver (Debian's packages) and pkill (procps, used by a test).
set -euo pipefail

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
command -v pkill >/dev/null 2>&1 || missing+=(procps)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
echo "ci/setup.sh: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
chromium --version
chromedriver --version

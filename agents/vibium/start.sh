#!/bin/sh
# Starts Vibium's MCP server on Debian's Chromium. Vibium drives its browser through chromedriver
# over WebDriver BiDi, and looks for both only in its own cache folder
# ($XDG_CACHE_HOME/vibium/chrome-for-testing/<version>/), where `vibium install` would download
# Chrome for Testing. Nothing is downloaded here: that folder is made, in a scratch folder of the
# run's, of a link to Debian's chromedriver and a wrapper that runs Debian's Chromium headless
# (as root it needs --no-sandbox).
# Usage: start.sh <scratch folder> <chromium binary> [vibium mcp arguments...]
set -eu
scratch="$1"; chromium="$2"; shift 2
here="$(cd "$(dirname "$0")" && pwd)"
version="$scratch/cache/vibium/chrome-for-testing/debian"
mkdir -p "$version/chrome-linux64" "$version/chromedriver-linux64"
driver="$(command -v chromedriver)"
ln -sf "$driver" "$version/chromedriver-linux64/chromedriver"
printf '#!/bin/sh\nexec "%s" --no-sandbox --headless=new "$@"\n' "$chromium" > "$version/chrome-linux64/chrome"
chmod +x "$version/chrome-linux64/chrome"
export XDG_CACHE_HOME="$scratch/cache" VIBIUM_SKIP_BROWSER_DOWNLOAD=1
exec "$here/../node_modules/@vibium/linux-x64/bin/vibium" mcp "$@"

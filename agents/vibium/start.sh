#!/bin/sh
# Starts Vibium's MCP server on Debian's Chromium. Vibium drives its browser through chromedriver
# over WebDriver BiDi, and looks for both only in its own cache folder
# ($XDG_CACHE_HOME/vibium/chrome-for-testing/<version>/), where `vibium install` would download
# Chrome for Testing. Nothing is downloaded here: that folder is made, in a scratch folder of the
# run's, of a link to Debian's chromedriver and a wrapper that runs Debian's Chromium headless
# (as root it needs --no-sandbox).
#
# With VIBIUM_ATTACH_CDP set to a running Chromium's DevTools endpoint (http://127.0.0.1:PORT),
# Vibium attaches to that browser instead: the "chrome" its chromedriver starts is a stand-in
# that writes that browser's DevTools port and path into the DevToolsActivePort file of the
# profile folder chromedriver gives it (where chromedriver reads the port of the Chrome it
# started), then waits until chromedriver ends it. Vibium's own calls, BiDi and chromedriver
# are unchanged; only the browser is the one already running.
# Usage: start.sh <scratch folder> <chromium binary> [vibium mcp arguments...]
set -eu
scratch="$1"; chromium="$2"; shift 2
here="$(cd "$(dirname "$0")" && pwd)"
version="$scratch/cache/vibium/chrome-for-testing/debian"
mkdir -p "$version/chrome-linux64" "$version/chromedriver-linux64"
driver="$(command -v chromedriver)"
# Vibium starts chromedriver in a process group of its own, which the harness's kill of the
# agent's group does not reach: chromedriver (and the stand-in below) get SIGKILL when the
# process that started them dies (setpriv --pdeathsig), so that nothing outlives a killed Vibium.
printf '#!/bin/sh\nexec setpriv --pdeathsig KILL "%s" "$@"\n' "$driver" > "$version/chromedriver-linux64/chromedriver"
chmod +x "$version/chromedriver-linux64/chromedriver"
if [ -n "${VIBIUM_ATTACH_CDP:-}" ]; then
  cat > "$version/chrome-linux64/chrome" <<'STANDIN'
#!/bin/sh
set -eu
profile=""
for arg in "$@"; do case "$arg" in --user-data-dir=*) profile="${arg#--user-data-dir=}";; esac; done
[ -n "$profile" ] || { echo "stand-in chrome: no --user-data-dir given" >&2; exit 1; }
ws="$(python3 -c 'import json, sys, urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1] + "/json/version"))["webSocketDebuggerUrl"])' "$VIBIUM_ATTACH_CDP")"
port="$(printf '%s' "$ws" | sed -E 's#^ws://[^/]*:([0-9]+)/.*#\1#')"
path="$(printf '%s' "$ws" | sed -E 's#^ws://[^/]+(/.*)$#\1#')"
mkdir -p "$profile"
printf '%s\n%s' "$port" "$path" > "$profile/DevToolsActivePort"
exec setpriv --pdeathsig KILL sleep 86400
STANDIN
else
  printf '#!/bin/sh\nexec "%s" --no-sandbox --headless=new "$@"\n' "$chromium" > "$version/chrome-linux64/chrome"
fi
chmod +x "$version/chrome-linux64/chrome"
export XDG_CACHE_HOME="$scratch/cache" VIBIUM_SKIP_BROWSER_DOWNLOAD=1
exec "$here/../node_modules/@vibium/linux-x64/bin/vibium" mcp "$@"

#!/usr/bin/env bash
# Builds the install packages of the `navguard` command from this clone, into target/dist/:
#   navguard-<version>-py3-none-<platform>.whl   the Python wheel (pipx install, uvx, pip)
#   navguard-<version>.tgz                       the npm launcher (npx navguard)
#   navguard-linux-x64-<version>.tgz             the npm package with the binary for linux-x64
# One release build: maturin (pinned with its hash in packaging/python/requirements.txt,
# installed into the virtual environment target/dist/.maturin) builds the wheel, stripped,
# and the npm package carries the very binary the wheel holds. Needs a Rust toolchain, Python 3
# with venv, and npm (`bash ci/setup.sh agents` installs the last two).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

dist="$PWD/target/dist"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)"
# The npm packages carry the version in their own files: they must say the crate's.
for manifest in packaging/npm/navguard/package.json packaging/npm/linux-x64/package.json; do
  said="$(node -p 'const p = require("./'"$manifest"'"); [p.version, ...Object.values(p.optionalDependencies ?? {})].join(" ")')"
  for v in $said; do
    if [ "$v" != "$version" ]; then
      echo "ci/package.sh: $manifest says version $v, Cargo.toml says $version: make them one" >&2
      exit 2
    fi
  done
done
rm -rf "$dist/navguard-"*.whl "$dist/"*.tgz "$dist/npm"
mkdir -p "$dist"

# The wheel.
maturin_env="$dist/.maturin"
requirements=packaging/python/requirements.txt
if [ ! -x "$maturin_env/bin/maturin" ] || [ "$requirements" -nt "$maturin_env/bin/maturin" ]; then
  python3 -m venv "$maturin_env"
  "$maturin_env/bin/pip" install --quiet --disable-pip-version-check --require-hashes --no-deps -r "$requirements"
fi
echo "ci/package.sh: the wheel (maturin, release build)"
(cd packaging/python && "$maturin_env/bin/maturin" build --release --locked --quiet --out "$dist")
wheel="$(ls "$dist"/navguard-"$version"-*.whl)"

# The npm packages: the launcher, and the binary out of the wheel (data/scripts/navguard).
echo "ci/package.sh: the npm packages"
mkdir -p "$dist/npm"
cp -r packaging/npm/navguard packaging/npm/linux-x64 "$dist/npm/"
mkdir -p "$dist/npm/linux-x64/bin"
python3 - "$wheel" "$dist/npm/linux-x64/bin/navguard" <<'EOF'
import shutil, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    [name] = [n for n in z.namelist() if n.endswith(".data/scripts/navguard")]
    with z.open(name) as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
EOF
chmod 755 "$dist/npm/linux-x64/bin/navguard"
(cd "$dist" && npm pack --silent ./npm/linux-x64 ./npm/navguard >/dev/null)
# npm names a scoped package's file after its scope: navguard-linux-x64-<version>.tgz.
ls "$dist"/*.tgz >/dev/null
echo "ci/package.sh: built $(cd "$dist" && ls navguard-*.whl *.tgz | tr '\n' ' ')"

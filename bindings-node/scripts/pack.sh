#!/usr/bin/env bash
# Build ferrite-mcp and pack it the napi-rs platform-package way, into bindings-node/dist/:
#
#   dist/ferrite-mcp-<version>.tgz                 the JavaScript package (lib/, the napi
#                                                  loader index.js); no native code, no build
#                                                  step on install
#   dist/ferrite-mcp-linux-x64-gnu-<version>.tgz   the platform package: the .node addon
#                                                  (debug info stripped), which the main
#                                                  package names in optionalDependencies
#
# What `napi pre-publish` does before publishing (copy each platform's addon into its
# npm/<platform>/ directory), done locally for the one target built here. Publishing is then
# `npm publish` of both tarballs, the platform package first.
#
#   FERRITE_PACK_SKIP_BUILD=1   pack what is already built
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

platform=linux-x64-gnu
addon="ferrite-mcp.$platform.node"

if [[ "${FERRITE_PACK_SKIP_BUILD:-0}" != 1 ]]; then
    npm run build >&2
fi
[[ -f "$addon" ]] || { echo "pack.sh: $addon is missing: build first (npm run build)" >&2; exit 1; }
[[ -f lib/index.js && -f lib/index.mjs ]] || { echo "pack.sh: lib/ is missing: build first (npm run build)" >&2; exit 1; }

version="$(node -p "require('./package.json').version")"
platform_version="$(node -p "require('./npm/$platform/package.json').version")"
wanted="$(node -p "require('./package.json').optionalDependencies['ferrite-mcp-$platform']")"
if [[ "$platform_version" != "$version" || "$wanted" != "$version" ]]; then
    echo "pack.sh: versions disagree: ferrite-mcp $version, npm/$platform $platform_version, optionalDependencies $wanted" >&2
    exit 1
fi

# The platform package: the addon (without debug info) and the licence.
strip --strip-debug -o "npm/$platform/$addon" "$addon"
cp LICENSE "npm/$platform/LICENSE"

rm -rf dist
mkdir -p dist
# --ignore-scripts: the build above already ran (`prepare` would build again).
(cd "npm/$platform" && npm pack --ignore-scripts --silent --pack-destination "$here/dist") >/dev/null
npm pack --ignore-scripts --silent --pack-destination "$here/dist" >/dev/null
rm -f "npm/$platform/$addon"

main="dist/ferrite-mcp-$version.tgz"
native="dist/ferrite-mcp-$platform-$version.tgz"
for t in "$main" "$native"; do
    [[ -f "$t" ]] || { echo "pack.sh: $t was not written" >&2; exit 1; }
done
if tar -tzf "$main" | grep -q '\.node$'; then
    echo "pack.sh: $main holds a .node file; the addon belongs in the platform package" >&2
    exit 1
fi
tar -tzf "$native" | grep -qx "package/$addon" || { echo "pack.sh: $native lacks $addon" >&2; exit 1; }
echo "$here/$main"
echo "$here/$native"

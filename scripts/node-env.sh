#!/usr/bin/env bash
# Runs a command under the pinned Node runtime (DESIGN.md: Node 24.21.0).
# When the machine's node is another major, the official build is fetched from the
# npm registry (node-linux-<arch>), its sha512 checked against the registry's
# dist.integrity, and unpacked into the ignored .tools/ folder.
set -euo pipefail

NODE_VERSION=24.21.0
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

current=$(node -p 'process.versions.node' 2>/dev/null || echo none)
if [[ "$current" != 24.* ]]; then
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "node-env: no Node $NODE_VERSION build for $(uname -m)" >&2; exit 1 ;;
  esac
  pkg="node-linux-$arch"
  dir="$root/.tools/$pkg-$NODE_VERSION"
  if [[ ! -x "$dir/bin/node" ]]; then
    echo "node-env: machine has node $current; fetching $pkg@$NODE_VERSION from the npm registry" >&2
    source "$root/scripts/progress.sh"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    expected=$(npm view "$pkg@$NODE_VERSION" dist.integrity 2>"$tmp/npm.log") || {
      cat "$tmp/npm.log" >&2
      exit 1
    }
    echo "node-env: downloading $pkg-$NODE_VERSION.tgz (about 30 MB)" >&2
    pack() { npm pack "$pkg@$NODE_VERSION" --silent >/dev/null 2>"$tmp/npm.log"; }
    if ! (cd "$tmp" && with_progress "node-env: download" pack); then
      cat "$tmp/npm.log" >&2
      exit 1
    fi
    tarball=$(ls "$tmp"/*.tgz)
    echo "node-env: verifying its sha512 against the registry's dist.integrity" >&2
    actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
    if [[ "$expected" != "$actual" ]]; then
      echo "node-env: integrity mismatch for $pkg@$NODE_VERSION" >&2
      echo "  registry: $expected" >&2
      echo "  download: $actual" >&2
      exit 1
    fi
    echo "node-env: unpacking into ${dir#"$root/"}" >&2
    mkdir -p "$dir.partial"
    tar xzf "$tarball" --strip-components=1 -C "$dir.partial"
    rm -rf "$dir" "$tmp"
    mv "$dir.partial" "$dir"
    echo "node-env: Node $("$dir/bin/node" -p 'process.versions.node') ready in ${dir#"$root/"} (integrity verified)" >&2
  fi
  export PATH="$dir/bin:$PATH"
fi

# Native modules (node-gyp) must build against the headers of the node that runs them. npm 11
# warns about `nodedir` in any npm config ("Unknown env/user config"), and a user npmrc may point it
# at another Node's headers (/usr: Debian's Node 20). So: node-gyp gets the headers through
# npm_package_config_node_gyp_nodedir, which it reads and which npm does not treat as config, and
# nested npm calls read a copy of the user's npmrc without `nodedir` (the rest, e.g. the registry,
# is kept).
prefix=$(dirname "$(dirname "$(node -p process.execPath)")")
if [[ -f "$prefix/include/node/common.gypi" ]]; then
  export npm_package_config_node_gyp_nodedir="$prefix"
fi
unset npm_config_nodedir NPM_CONFIG_NODEDIR
userconfig="${npm_config_userconfig:-${NPM_CONFIG_USERCONFIG:-$HOME/.npmrc}}"
if [[ -f "$userconfig" ]] && grep -Eq '^[[:space:]]*nodedir[[:space:]]*=' "$userconfig"; then
  copies="${XDG_CACHE_HOME:-$HOME/.cache}/caudal"
  copy="$copies/npmrc-$(printf '%s' "$userconfig" | sha256sum | cut -c1-12)"
  mkdir -p "$copies"
  tmp_copy=$(mktemp "$copy.XXXXXX") # mode 0600: an npmrc may hold registry tokens
  grep -Ev '^[[:space:]]*nodedir[[:space:]]*=' "$userconfig" >"$tmp_copy" || true
  mv -f "$tmp_copy" "$copy"
  unset NPM_CONFIG_USERCONFIG
  export npm_config_userconfig="$copy"
fi

exec "$@"

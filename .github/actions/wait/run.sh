#!/usr/bin/env bash
# The action's step: install a released kubectl-chain (checked against the
# release's checksums.txt) and wait for the targets, with GitHub
# annotations. Inputs come as INPUT_* variables; KUBECTL_CHAIN_RELEASES
# replaces the releases' download address (tests serve a snapshot).
set -euo pipefail

releases="${KUBECTL_CHAIN_RELEASES:-https://github.com/kubectl-chain/kubectl-chain/releases}"
version="${INPUT_VERSION:-latest}"
if [ -z "${INPUT_TARGETS:-}" ]; then
  echo "::error title=kubectl chain::the targets input is empty: name what to wait for (deploy/web, -l app=shop, --all)"
  exit 2
fi

case "${RUNNER_OS:-$(uname -s)}" in
  Linux) os=linux ;; macOS|Darwin) os=darwin ;; Windows|MINGW*|MSYS*) os=windows ;;
  *) echo "::error title=kubectl chain::no kubectl-chain release for ${RUNNER_OS:-$(uname -s)}"; exit 2 ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
  X64|x86_64|amd64) arch=amd64 ;; ARM64|aarch64|arm64) arch=arm64 ;;
  *) echo "::error title=kubectl chain::no kubectl-chain release for ${RUNNER_ARCH:-$(uname -m)}"; exit 2 ;;
esac

if [ "$version" = latest ]; then
  # The latest release's page redirects to its tag.
  url=$(curl -fsSLI -o /dev/null -w '%{url_effective}' "$releases/latest")
  version="${url##*/}"
fi
ext=tar.gz; bin=kubectl-chain
if [ "$os" = windows ]; then ext=zip; bin=kubectl-chain.exe; fi
archive="kubectl-chain_${version}_${os}_${arch}.${ext}"

dir="${RUNNER_TEMP:-$(mktemp -d)}/kubectl-chain-$version"
mkdir -p "$dir/bin"
if [ ! -x "$dir/bin/$bin" ]; then
  curl -fsSL -o "$dir/$archive" "$releases/download/$version/$archive"
  curl -fsSL -o "$dir/checksums.txt" "$releases/download/$version/checksums.txt"
  want=$(awk -v f="$archive" '$2 == f {print $1}' "$dir/checksums.txt")
  got=$( (sha256sum "$dir/$archive" 2>/dev/null || shasum -a 256 "$dir/$archive") | awk '{print $1}')
  if [ -z "$want" ] || [ "$want" != "$got" ]; then
    echo "::error title=kubectl chain::$archive does not match the release's checksums.txt (want ${want:-none}, got $got)"
    exit 2
  fi
  if [ "$ext" = zip ]; then unzip -q -o "$dir/$archive" -d "$dir/bin"; else tar -xzf "$dir/$archive" -C "$dir/bin"; fi
fi
if [ -n "${GITHUB_PATH:-}" ]; then echo "$dir/bin" >> "$GITHUB_PATH"; fi
"$dir/bin/$bin" version

args=()
read -r -a targets <<< "$INPUT_TARGETS"
args+=("${targets[@]}" --wait --timeout "${INPUT_TIMEOUT:-5m}")
if [ -n "${INPUT_NAMESPACE:-}" ]; then args+=(-n "$INPUT_NAMESPACE"); fi
if [ -n "${INPUT_GRACE:-}" ]; then args+=(--grace "$INPUT_GRACE"); fi
# On GitHub (GITHUB_ACTIONS=true) a broken workload is also an ::error
# annotation; the exit code is kubectl chain's.
exec "$dir/bin/$bin" "${args[@]}"

#!/usr/bin/env bash
# Makes sure the system tools the test suite needs beyond npm are installed; `npm test` runs it first (pretest).
#
# promtool (Debian package `prometheus`): the metrics tests check the /metrics exposition with it.
# - promtool on PATH: nothing to do.
# - missing, running as root with apt-get: `apt-get update` + `apt-get install -y prometheus`.
# - missing otherwise: exits 1 with the package name and the command to run.
set -euo pipefail

PACKAGE=prometheus

if command -v promtool >/dev/null 2>&1; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-system-deps: promtool not found; installing Debian package '$PACKAGE' (apt-get update + install)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "$PACKAGE" >/dev/null
  if command -v promtool >/dev/null 2>&1; then
    exit 0
  fi
  echo "ensure-system-deps: installed '$PACKAGE' but promtool is still not on PATH ($PATH)" >&2
  exit 1
fi

cat >&2 <<MSG
ensure-system-deps: promtool not found. The metrics tests need it; it comes in Debian's '$PACKAGE' package.
Install it, then run the tests again:
  sudo apt-get update && sudo apt-get install -y $PACKAGE
(Run as root, \`npm test\` installs it by itself. On a system without apt-get, put Prometheus' promtool on PATH.)
MSG
exit 1

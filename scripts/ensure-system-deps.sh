#!/usr/bin/env bash
# Makes sure the system tools the test suite needs beyond npm are installed; `npm test` runs it first (pretest).
#
# Command               Debian package          Used by
# promtool, prometheus  prometheus              /metrics lint, alert rule tests, the dashboard test's scraper
# prometheus-pushgateway prometheus-pushgateway  one-shot runs pushing their metrics (--pushgateway)
# systemd-analyze       systemd                 `systemd-analyze verify` of deploy/systemd/ballast.service
#
# - every command on PATH: nothing to do.
# - some missing, running as root with apt-get: `apt-get update` once, then `apt-get install -y` the packages.
# - missing otherwise: exits 1 naming the packages and the command to run.
set -euo pipefail

NEEDED=(
  "promtool prometheus"
  "prometheus prometheus"
  "prometheus-pushgateway prometheus-pushgateway"
  "systemd-analyze systemd"
)

missing=()
for entry in "${NEEDED[@]}"; do
  read -r cmd pkg <<<"$entry"
  if ! command -v "$cmd" >/dev/null 2>&1 && [[ ! " ${missing[*]-} " == *" $pkg "* ]]; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-system-deps: installing Debian packages: ${missing[*]} (apt-get update + install)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  still=()
  for entry in "${NEEDED[@]}"; do
    read -r cmd pkg <<<"$entry"
    command -v "$cmd" >/dev/null 2>&1 || still+=("$cmd")
  done
  if [ "${#still[@]}" -eq 0 ]; then
    # The Debian packages start their services; the tests start their own on free loopback ports instead.
    for svc in prometheus prometheus-pushgateway; do
      if command -v systemctl >/dev/null 2>&1; then systemctl stop "$svc" >/dev/null 2>&1 || true; fi
      if command -v service >/dev/null 2>&1; then service "$svc" stop >/dev/null 2>&1 || true; fi
    done
    exit 0
  fi
  echo "ensure-system-deps: installed ${missing[*]} but ${still[*]} still not on PATH ($PATH)" >&2
  exit 1
fi

cat >&2 <<MSG
ensure-system-deps: the tests need Debian packages that are not installed: ${missing[*]}
Install them, then run the tests again:
  sudo apt-get update && sudo apt-get install -y ${missing[*]}
(Run as root, \`npm test\` installs them by itself. Elsewhere, put promtool, prometheus, prometheus-pushgateway
and systemd-analyze on PATH.)
MSG
exit 1

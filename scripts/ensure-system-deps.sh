#!/usr/bin/env bash
# Makes sure the system tools the test suite needs beyond npm are installed; `npm test` runs it first (pretest).
#
# Command               Debian package          Used by
# promtool, prometheus  prometheus              /metrics lint, alert rule tests, the dashboard test's scraper
# prometheus-pushgateway prometheus-pushgateway  one-shot runs pushing their metrics (--pushgateway)
# systemd-analyze       systemd                 `systemd-analyze verify` of deploy/systemd/ballast.service
# openssl               openssl                 the TLS client certificates of the remote signer tests
# initdb, pg_ctl,       postgresql              the PostgreSQL store and leader-lease tests (test/helpers/postgres.ts);
#   postgres                                    Debian keeps them in /usr/lib/postgresql/<major>/bin, off PATH
#
# - every command found (on PATH; the PostgreSQL ones in /usr/lib/postgresql/*/bin or on PATH): nothing to do.
# - some missing, running as root with apt-get: `apt-get update` once, then `apt-get install -y` the packages.
# - missing otherwise: exits 1 naming the packages and the command to run.
set -euo pipefail

NEEDED=(
  "promtool prometheus"
  "prometheus prometheus"
  "prometheus-pushgateway prometheus-pushgateway"
  "systemd-analyze systemd"
  "openssl openssl"
)

# PostgreSQL server binaries: Debian installs them per major version outside PATH.
PG_TOOLS=(initdb pg_ctl postgres)
have_pg_tool() {
  local dir
  if [ -n "${BALLAST_PG_BIN:-}" ] && [ -x "$BALLAST_PG_BIN/$1" ]; then return 0; fi
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/$1" ] && return 0
  done
  command -v "$1" >/dev/null 2>&1
}

missing=()
for entry in "${NEEDED[@]}"; do
  read -r cmd pkg <<<"$entry"
  if ! command -v "$cmd" >/dev/null 2>&1 && [[ ! " ${missing[*]-} " == *" $pkg "* ]]; then
    missing+=("$pkg")
  fi
done
for tool in "${PG_TOOLS[@]}"; do
  if ! have_pg_tool "$tool" && [[ ! " ${missing[*]-} " == *" postgresql "* ]]; then
    missing+=("postgresql")
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
  for tool in "${PG_TOOLS[@]}"; do
    have_pg_tool "$tool" || still+=("$tool")
  done
  if [ "${#still[@]}" -eq 0 ]; then
    # The Debian packages start their services; the tests start their own on free loopback ports instead.
    for svc in prometheus prometheus-pushgateway; do
      if command -v systemctl >/dev/null 2>&1; then systemctl stop "$svc" >/dev/null 2>&1 || true; fi
      if command -v service >/dev/null 2>&1; then service "$svc" stop >/dev/null 2>&1 || true; fi
    done
    if [[ " ${missing[*]} " == *" postgresql "* ]]; then
      # The package creates and starts a cluster (`main`); the tests run their own in temp directories, so stop
      # it and keep it from starting at boot.
      if command -v systemctl >/dev/null 2>&1; then
        systemctl stop postgresql >/dev/null 2>&1 || true
        systemctl disable postgresql >/dev/null 2>&1 || true
      fi
      if command -v service >/dev/null 2>&1; then service postgresql stop >/dev/null 2>&1 || true; fi
      if command -v pg_lsclusters >/dev/null 2>&1; then
        pg_lsclusters --no-header 2>/dev/null | while read -r ver name _; do
          pg_ctlcluster "$ver" "$name" stop >/dev/null 2>&1 || true
          if [ -f "/etc/postgresql/$ver/$name/start.conf" ]; then echo manual >"/etc/postgresql/$ver/$name/start.conf"; fi
        done
      fi
    fi
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
and systemd-analyze on PATH, and initdb, pg_ctl and postgres on PATH or in /usr/lib/postgresql/<major>/bin;
BALLAST_PG_BIN names another directory holding them for the tests.)
MSG
exit 1

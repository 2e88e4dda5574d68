#!/usr/bin/env bash
# The static checks of `npm test`, on two sides of about the same length (all three tools are single-threaded; CI has
# two cores): ESLint (type-aware, about 115 s of CPU from a fresh clone) in the foreground, and the type check (about
# 65 s) then Prettier's format check (about 30 s) in the background. Together they are `npm run typecheck` and
# `npm run lint` (ESLint with the same arguments, then `prettier --check`). All must pass; the background side's output
# is printed whole after ESLint's, and the exit status is the first failure's, in the order typecheck, ESLint, Prettier.
set -uo pipefail
cd "$(dirname "$0")/.."

background_log="$(mktemp)"
background_status="$(mktemp)"
trap 'rm -f "$background_log" "$background_status"' EXIT
(
  npm run --silent typecheck
  typecheck_status=$?
  npx --no-install prettier --check . --log-level warn
  echo "$typecheck_status $?" >"$background_status"
) >"$background_log" 2>&1 &
background_pid=$!
npx --no-install eslint . --cache --cache-location node_modules/.cache/eslint/
eslint_status=$?
wait "$background_pid"
cat "$background_log"
read -r typecheck_status prettier_status <"$background_status" || {
  echo "static checks: the type check and format check did not report a status" >&2
  exit 1
}
if [ "$typecheck_status" -ne 0 ]; then
  echo "static checks: npm run typecheck failed (exit $typecheck_status)" >&2
  exit "$typecheck_status"
fi
if [ "$eslint_status" -ne 0 ]; then
  echo "static checks: eslint (npm run lint) failed (exit $eslint_status)" >&2
  exit "$eslint_status"
fi
if [ "$prettier_status" -ne 0 ]; then
  echo "static checks: prettier --check (npm run lint) failed (exit $prettier_status)" >&2
  exit "$prettier_status"
fi

#!/usr/bin/env bash
# The static checks of `npm test`, side by side (tsc and eslint are single-threaded; CI has two cores): the type
# check runs in the background while eslint and prettier run in the foreground. Both must pass; the type check's
# output is printed whole after the lint's, and the exit status is the first failure's.
set -uo pipefail
cd "$(dirname "$0")/.."

typecheck_log="$(mktemp)"
trap 'rm -f "$typecheck_log"' EXIT
npm run --silent typecheck >"$typecheck_log" 2>&1 &
typecheck_pid=$!
npm run --silent lint
lint_status=$?
wait "$typecheck_pid"
typecheck_status=$?
cat "$typecheck_log"
if [ "$typecheck_status" -ne 0 ]; then
  echo "static checks: npm run typecheck failed (exit $typecheck_status)" >&2
  exit "$typecheck_status"
fi
if [ "$lint_status" -ne 0 ]; then
  echo "static checks: npm run lint failed (exit $lint_status)" >&2
  exit "$lint_status"
fi

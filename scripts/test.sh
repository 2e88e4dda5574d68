#!/usr/bin/env bash
# `npm test`: the static checks (scripts/static-checks.sh: type check, ESLint, Prettier) and every test (`vitest run`,
# with any arguments given to `npm test -- …`) side by side; both must pass, and the exit status is the first
# failure's (static checks, then tests).
#
# The tests leave part of two cores idle (they wait on chains, daemons and timeouts), so the static checks run at the
# lowest CPU priority (nice 19) and mostly take what the tests leave: on two cores with two workers `npm test` took
# about 40 s less than the checks and then the tests (653 s against 85 s + 605 s). Their output is printed whole
# after the tests'.
set -uo pipefail
cd "$(dirname "$0")/.."

static_log="$(mktemp)"
trap 'rm -f "$static_log"' EXIT
nice -n 19 bash scripts/static-checks.sh >"$static_log" 2>&1 &
static_pid=$!

npx --no-install vitest run "$@"
tests_status=$?

wait "$static_pid"
static_status=$?
echo
echo "static checks (npm run typecheck, npm run lint):"
cat "$static_log"
if [ "$static_status" -ne 0 ]; then
  echo "npm test: the static checks failed (exit $static_status); see above" >&2
  exit "$static_status"
fi
echo "static checks passed"
if [ "$tests_status" -ne 0 ]; then
  echo "npm test: vitest failed (exit $tests_status)" >&2
fi
exit "$tests_status"

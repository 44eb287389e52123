#!/usr/bin/env bash
# The one test command (`npm test`): system packages, the build, typecheck, lint, then every test
# file under node's test runner. Extra arguments select test files, e.g. `npm test -- test/kube`.
# The build comes first in both cases: tests and process pods spawn bin/peerpods.js, which runs
# dist/ (incremental: a build with no change takes about a second).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/system-deps.sh
echo "== build"; node scripts/build.mjs

if [ $# -eq 0 ]; then
  echo "== typecheck"; npx tsc -p tsconfig.json --noEmit
  echo "== lint"; npx eslint . ; npx prettier --check . >/dev/null
  roots=(test)
else
  roots=("$@")
fi

mapfile -t files < <(find "${roots[@]}" -name '*.test.ts' | sort)
if [ ${#files[@]} -eq 0 ]; then echo "no test files under ${roots[*]}" >&2; exit 1; fi
echo "== tests (${#files[@]} files)"
exec node --import tsx --test --test-concurrency="${TEST_CONCURRENCY:-2}" --test-timeout=1200000 "${files[@]}"

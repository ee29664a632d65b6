#!/usr/bin/env bash
# `npm test`: every check, as CI runs it. Installs missing system packages (Chromium,
# PostgreSQL) from Debian, then: typecheck, lint (zero warnings), migrations vs schema,
# unit + CLI + SQLite integration tests, PostgreSQL migrations + integration tests,
# production build, a smoke run of every benchmark part, Playwright e2e in Debian's Chromium against the real app and database.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system-deps.sh
step() { printf '\n=== %s (%s)\n' "$*" "$(date +%T)"; }
mkdir -p .test-reports e2e-artifacts .test-reports/logs
rm -f .test-reports/*.json .test-reports/logs/*

# Steps that do not depend on each other run side by side (each is mostly one core, or waits on a
# database); each one's output is printed whole, in order, when it ends, and any failure fails CI.
# bg NAME COMMAND... starts one; finish NAME... waits for them and prints their output.
declare -A PIDS=()
logof() { printf '.test-reports/logs/%s.log' "${1//[^A-Za-z0-9]/-}"; }
bg() { local name=$1; shift; ("$@") >"$(logof "$name")" 2>&1 & PIDS[$name]=$!; }
finish() {
  local failed=0
  for name in "$@"; do
    local rc=0
    wait "${PIDS[$name]}" || rc=$?
    step "$name"
    cat "$(logof "$name")"
    if [ "$rc" -ne 0 ]; then echo "!!! $name failed (exit $rc)"; failed=1; fi
  done
  return $failed
}

# Typecheck, lint and the migrations check side by side first (each mostly one core). Run beside
# vitest instead they saved nothing measurable (vitest 259-283 -> 299 s, the three ~44 s) and
# loaded the timing-sensitive tests more.
bg "typecheck" npm run -s typecheck
bg "lint" npm run -s lint
bg "migrations match prisma/schema.prisma (SQLite and PostgreSQL)" npm run -s db:check
finish "typecheck" "lint" "migrations match prisma/schema.prisma (SQLite and PostgreSQL)"

step "unit, CLI and SQLite integration tests (vitest)"
npx vitest run --reporter=default --reporter=json --outputFile.json=.test-reports/vitest.json

# The production build runs beside the PostgreSQL tests (they wait on the server much of the time).
build() {
  npx next build
  # The same stamp scripts/demo.sh writes: a later `npm run demo` on this tree reuses this build
  # instead of building the same sources again (issue 22 item 10).
  bash scripts/build-stamp.sh > .next/.symtrace-build
}
bg "production build" build

step "PostgreSQL: apply migrations, run lib/db, lib/jobs and release (export/import round trip, AED) integration tests"
bash scripts/start-postgres.sh symtrace_ci_migrate symtrace_ci_test
PG=postgresql://symtrace:symtrace@127.0.0.1:${SYMTRACE_PG_PORT:-54329}
DATABASE_URL=$PG/symtrace_ci_migrate npm run -s db:migrate
TEST_DATABASE_URL=$PG/symtrace_ci_test npx vitest run lib/db lib/jobs lib/services/release.test.ts lib/services/release-aed.test.ts --reporter=default --reporter=json --outputFile.json=.test-reports/vitest-pg.json

finish "production build"

# The PostgreSQL e2e (two tests against its own app server and two pg-boss worker processes, its own
# ports and Playwright folder) runs beside the smoke run; each is about one core. The SQLite e2e
# runs alone afterwards: it is the long one, and timing-sensitive under load.
bash scripts/start-postgres.sh symtrace_ci_e2e
pg_e2e() {
  E2E_DATABASE_URL=$PG/symtrace_ci_e2e E2E_PORT=3220 E2E_LLM_PORT=3293 E2E_TOOL_PORT=3294 E2E_OUTPUT_DIR=test-results-pg \
    PLAYWRIGHT_JSON_OUTPUT_NAME=.test-reports/playwright-pg.json npx playwright test e2e/replay.spec.ts --reporter=list,json
}
bg "e2e on PostgreSQL: replay from here with two pg-boss worker processes" pg_e2e

step "benchmarks, smoke run (every part at a small size; figures printed, not asserted)"
smoke_rc=0
BENCH_SMOKE=1 BENCH_REUSE_BUILD=1 npm run -s bench || smoke_rc=$?
finish "e2e on PostgreSQL: replay from here with two pg-boss worker processes"
[ "$smoke_rc" -eq 0 ] || { echo "!!! benchmark smoke run failed (exit $smoke_rc)"; exit "$smoke_rc"; }

# The SQLite e2e in two halves side by side, each against its own app server, SQLite file, ports and
# Playwright folder, so neither sees the other's users, assignments or jobs. Half A is a fixed list,
# half B every other spec (a new spec lands in B). The split is by the specs' measured durations
# (.test-reports/playwright*.json of a CI run): ~130 s of tests each.
E2E_A=(blindness windowed inspector cases symptoms wide-and-media import release timeline-timing)
e2e_a_files=(); for n in "${E2E_A[@]}"; do e2e_a_files+=("e2e/$n.spec.ts"); done
e2e_b_files=(); for f in e2e/*.spec.ts; do [[ " ${e2e_a_files[*]} " == *" $f "* ]] || e2e_b_files+=("$f"); done
e2e_a() { PLAYWRIGHT_JSON_OUTPUT_NAME=.test-reports/playwright.json npx playwright test "${e2e_a_files[@]}" --reporter=list,json; }
e2e_b() {
  E2E_DATABASE_URL=file:./data/e2e-b.db E2E_PORT=3230 E2E_LLM_PORT=3295 E2E_TOOL_PORT=3296 E2E_OUTPUT_DIR=test-results-b \
    PLAYWRIGHT_JSON_OUTPUT_NAME=.test-reports/playwright-b.json npx playwright test "${e2e_b_files[@]}" --reporter=list,json
}
step "e2e (Playwright, Debian chromium, real app, real SQLite database): ${#e2e_a_files[@]} + ${#e2e_b_files[@]} spec files side by side"
bg "e2e, half A" e2e_a
bg "e2e, half B" e2e_b
finish "e2e, half A" "e2e, half B"

node -e '
const fs = require("fs");
let passed = 0, failed = 0, skipped = 0;
for (const f of [".test-reports/vitest.json", ".test-reports/vitest-pg.json"]) {
  const r = JSON.parse(fs.readFileSync(f, "utf8"));
  passed += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests + (r.numTodoTests || 0);
}
for (const f of [".test-reports/playwright.json", ".test-reports/playwright-b.json", ".test-reports/playwright-pg.json"]) {
  const p = JSON.parse(fs.readFileSync(f, "utf8")).stats;
  passed += p.expected; failed += p.unexpected + p.flaky; skipped += p.skipped;
}
console.log(`\nall tests: ${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
process.exit(failed ? 1 : 0);
'

#!/usr/bin/env bash
# The app under e2e test: a fresh SQLite database (DATABASE_URL), migrated and seeded with the
# shared samples by the real scripts, then the production build served on 127.0.0.1:$1.
set -euo pipefail
cd "$(dirname "$0")/.."
case "$DATABASE_URL" in
  postgres*)
    # PostgreSQL: an emptied database; replays go through pg-boss to two worker processes.
    npm run -s db:reset >/dev/null
    ;;
  *)
    file="${DATABASE_URL#file:}"
    rm -f "$file" "$file-journal" "$file-wal" "$file-shm"
    ;;
esac
npm run -s db:seed >/dev/null
# "Replay from here" goes to the scripted stand-in model and the reference tool server (test
# support: scripted answers, no real model), started beside the app and stopped with it by the
# same starter as `npm run demo` (scripts/replay-stack.ts; it sets SYMTRACE_REPLAY_UPSTREAM,
# _MODEL, _SCRIPTED, _TOOL_UPSTREAM and _EVALUATOR unless already set).
LLM_PORT=${E2E_LLM_PORT:-3291}
TOOL_PORT=${E2E_TOOL_PORT:-3292}
# The outcome of each completed replay (and of its source when the source records no verdict):
# the reference evaluator of the reference MAS's task (unknown for any other task).
export SYMTRACE_REPLAY_EVALUATOR="${SYMTRACE_REPLAY_EVALUATOR:-node $PWD/scripts/hilltop-evaluator.mjs}"
# Test support: register the AI SDK example as a runner (e2e/runners.json, used by
# e2e/frameworks.spec.ts), so "Replay from here" on its recorded run is a native replay
# (also for the PostgreSQL workers below).
export SYMTRACE_RUNNERS_FILE="${SYMTRACE_RUNNERS_FILE:-$PWD/e2e/runners.json}"
case "$DATABASE_URL" in
  postgres*)
    export SYMTRACE_EMBEDDED_WORKER=0
    node --disable-warning=ExperimentalWarning --experimental-wasm-modules --import tsx scripts/worker.ts 2>>"${E2E_WORKER_LOG:-/dev/null}" &
    W1=$!
    node --disable-warning=ExperimentalWarning --experimental-wasm-modules --import tsx scripts/worker.ts 2>>"${E2E_WORKER_LOG:-/dev/null}" &
    W2=$!
    trap 'kill $W1 $W2 2>/dev/null' EXIT
    ;;
esac
# The tests sign in many users from one address: no per-IP sign-in rate limit here.
export SYMTRACE_AUTH_RATE_LIMIT=0
export BETTER_AUTH_URL="${BETTER_AUTH_URL:-http://127.0.0.1:$1}"
node --import tsx scripts/replay-stack.ts "$LLM_PORT" "$TOOL_PORT" -- npx next start -p "$1" -H 127.0.0.1

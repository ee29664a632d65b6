#!/usr/bin/env bash
# `npm run demo`: the main job on the embedded default. Applies migrations to the SQLite file
# (data/symtrace.db, or DATABASE_URL), imports the shared samples and the recorded reference
# case of demo/ (idempotent), builds the app when its sources changed (scripts/build-stamp.sh: a
# bundle written into the repo folder does not count), and serves it on
# http://localhost:${PORT:-3000} with "Replay from here" working out of the box: the scripted
# stand-in model on 127.0.0.1:${SYMTRACE_DEMO_LLM_PORT:-3101} and the reference tool server on
# 127.0.0.1:${SYMTRACE_DEMO_TOOL_PORT:-3102} (scripts/replay-stack.ts), started with the app and
# stopped with it. Replay settings you set yourself (SYMTRACE_REPLAY_*) win.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run -s db:migrate
npm run -s db:seed
stamp=$(bash scripts/build-stamp.sh)
if [ ! -f .next/BUILD_ID ] || [ "$(cat .next/.symtrace-build 2>/dev/null)" != "$stamp" ]; then
  npx next build
  echo "$stamp" > .next/.symtrace-build
fi
cat <<MSG

SymTrace Studio: http://localhost:${PORT:-3000}/
Demo accounts (password: symtrace-demo):
  admin@symtrace.local        admin, researcher
  annotator1@symtrace.local   annotator   (annotator2@, annotator3@ likewise)
  adjudicator@symtrace.local  adjudicator
  researcher@symtrace.local   researcher
The four gold cases are assigned to the three annotators and the adjudicator.
"Replay from here" works on every case: live calls go to a scripted stand-in model (results are
labelled "scripted stand-in model"); the reference case demo/reference-orchestrator-hilltop
replays natively. For a real endpoint see the README ("Replay with a real model").
MSG
export BETTER_AUTH_URL="${BETTER_AUTH_URL:-http://localhost:${PORT:-3000}}"
exec node --import tsx scripts/replay-stack.ts "${SYMTRACE_DEMO_LLM_PORT:-3101}" "${SYMTRACE_DEMO_TOOL_PORT:-3102}" -- npx next start -p "${PORT:-3000}"

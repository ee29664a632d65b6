#!/usr/bin/env bash
# `npm run demo`: the main job on the embedded default. Applies migrations to the SQLite file
# (data/symtrace.db, or DATABASE_URL), imports the ../shared samples (idempotent), builds the app
# when the sources changed, and serves it on http://localhost:${PORT:-3000}.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run -s db:migrate
npm run -s db:seed
stamp=$(git rev-parse HEAD 2>/dev/null || echo none)-$(git status --porcelain 2>/dev/null | sha256sum | cut -c1-12)
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
MSG
export BETTER_AUTH_URL="${BETTER_AUTH_URL:-http://localhost:${PORT:-3000}}"
exec npx next start -p "${PORT:-3000}"

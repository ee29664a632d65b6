#!/usr/bin/env bash
# The app under e2e test: a fresh SQLite database (DATABASE_URL), migrated and seeded with the
# shared samples by the real scripts, then the production build served on 127.0.0.1:$1.
set -euo pipefail
cd "$(dirname "$0")/.."
file="${DATABASE_URL#file:}"
rm -f "$file" "$file-journal" "$file-wal" "$file-shm"
npm run -s db:seed >/dev/null
# The tests sign in many users from one address: no per-IP sign-in rate limit here.
export SYMTRACE_AUTH_RATE_LIMIT=0
exec npx next start -p "$1" -H 127.0.0.1

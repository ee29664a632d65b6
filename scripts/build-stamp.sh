#!/usr/bin/env bash
# Prints the stamp of the app's build inputs (used by scripts/demo.sh to rebuild only when they
# change): HEAD plus a hash of the uncommitted changes to the app's sources and configuration.
# Anything else in the repo folder (a bundle written at the top level, demo/, data/, e2e output,
# notes) does not change the stamp, so writing a file there never triggers a rebuild.
set -uo pipefail
cd "${1:-$(dirname "$0")/..}"
SRC=(app components lib mas proxy public styles prisma/schema.prisma instrumentation.ts middleware.ts proxy.ts next.config.mjs package.json package-lock.json tsconfig.json postcss.config.mjs)
head=$(git rev-parse HEAD 2>/dev/null || echo none)
changes=$({
  git diff HEAD -- "${SRC[@]}" 2>/dev/null
  git ls-files --others --exclude-standard -z -- "${SRC[@]}" 2>/dev/null | xargs -0r sha256sum
} | sha256sum | cut -c1-12)
echo "$head-$changes"

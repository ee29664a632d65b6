#!/usr/bin/env bash
# Install what the tests need from Debian when it is missing: Chromium and its headless shell
# (Playwright cannot download browsers here) and PostgreSQL (the second database CI proves). Needs root or sudo.
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
# The e2e tests' browser (playwright.config.ts); the benchmarks use the full one above.
[ -x /usr/bin/chromium-headless-shell ] || need+=(chromium-headless-shell)
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || need+=(postgresql)
fc-list 2>/dev/null | grep -qi dejavu || need+=(fonts-dejavu-core)
[ ${#need[@]} -eq 0 ] && exit 0
echo "ensure-system-deps: installing ${need[*]}" >&2
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null

import { existsSync } from "node:fs";
import { defineConfig } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT ?? 3210);
/**
 * Debian's build of Chromium's headless shell (package chromium-headless-shell, installed by
 * scripts/ensure-system-deps.sh): what Playwright itself runs for headless Chromium, lighter than the
 * full browser in headless mode (in npm test's e2e the full browser's processes took about a third
 * of the CPU). Falls back to the full browser; CHROMIUM_PATH overrides both. The benchmarks keep the
 * full browser: they measure what a user's browser paints.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? (existsSync("/usr/bin/chromium-headless-shell") ? "/usr/bin/chromium-headless-shell" : "/usr/bin/chromium");
/** The e2e database: a fresh SQLite file, migrated and seeded by scripts/e2e-server.sh. */
export const E2E_DATABASE_URL = process.env.E2E_DATABASE_URL ?? "file:./data/e2e.db";

export default defineConfig({
  testDir: "e2e",
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 1,
  timeout: 60_000,
  // Web-first assertions wait up to 15 s (Playwright's default is 5 s): npm test runs the e2e in two
  // halves side by side on a 2-core machine, and a CI machine may be loaded besides. A passing
  // assertion returns as soon as it holds, so this costs nothing when the app is fast.
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  // A second run beside this one (npm test's PostgreSQL e2e) gets its own folder: each run empties its own.
  outputDir: process.env.E2E_OUTPUT_DIR ?? "test-results",
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-quic", "--no-first-run", "--disable-sync"],
    },
  },
  webServer: {
    // A production build of the real app (scripts/test-all.sh builds it first) on a real database,
    // fresh, migrated and seeded with the shared samples by scripts/e2e-server.sh.
    command: `bash scripts/e2e-server.sh ${PORT}`,
    url: `http://127.0.0.1:${PORT}/cases`,
    reuseExistingServer: false,
    timeout: 120_000,
    env: { DATABASE_URL: E2E_DATABASE_URL },
  },
});

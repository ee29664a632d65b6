import { defineConfig } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT ?? 3210);
/** The e2e database: a fresh SQLite file, migrated and seeded by scripts/e2e-server.sh. */
export const E2E_DATABASE_URL = process.env.E2E_DATABASE_URL ?? "file:./data/e2e.db";

export default defineConfig({
  testDir: "e2e",
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 1,
  timeout: 60_000,
  reporter: [["list"]],
  // A second run beside this one (npm test's PostgreSQL e2e) gets its own folder: each run empties its own.
  outputDir: process.env.E2E_OUTPUT_DIR ?? "test-results",
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
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

import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/**/*.test.ts", "components/**/*.test.tsx", "cli/**/*.test.ts", "scripts/**/*.test.ts", "mas/**/*.test.ts", "proxy/**/*.test.ts", "examples/**/*.test.ts"],
    environment: "node",
    // CLI and database tests spawn processes; a loaded 2-core CI machine needs the headroom.
    testTimeout: 120_000,
    pool: "forks",
    // The wasm schema engine (migrations in lib/db tests) is an ES module importing a .wasm file.
    execArgv: ["--experimental-wasm-modules", "--disable-warning=ExperimentalWarning"],
  },
});

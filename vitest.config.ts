import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/**/*.test.ts", "cli/**/*.test.ts", "scripts/**/*.test.ts", "mas/**/*.test.ts", "proxy/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    pool: "forks",
    // The wasm schema engine (migrations in lib/db tests) is an ES module importing a .wasm file.
    execArgv: ["--experimental-wasm-modules", "--disable-warning=ExperimentalWarning"],
  },
});

import { defineConfig } from "vitest/config";
import os from "node:os";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/**/*.test.ts", "components/**/*.test.tsx", "cli/**/*.test.ts", "scripts/**/*.test.ts", "mas/**/*.test.ts", "proxy/**/*.test.ts", "examples/**/*.test.ts"],
    environment: "node",
    // CLI and database tests spawn processes; a loaded 2-core CI machine needs the headroom.
    testTimeout: 120_000,
    pool: "forks",
    // Vitest's default is one worker per core minus one: a single worker on a 2-core CI machine,
    // idle while a test waits on the processes it spawns (MAS runs, servers, the CLI). Three
    // workers there took the suite from ~9.7 to ~6.6 minutes on an idle machine.
    maxWorkers: Math.max(3, os.availableParallelism() - 1),
    // The wasm schema engine (migrations in lib/db tests) is an ES module importing a .wasm file.
    execArgv: ["--experimental-wasm-modules", "--disable-warning=ExperimentalWarning"],
  },
});

import { defineConfig } from "vitest/config";
import os from "node:os";
import path from "node:path";
import ExamplesFirstSequencer from "./vitest.sequencer";

const ALL = ["lib/**/*.test.ts", "components/**/*.test.tsx", "cli/**/*.test.ts", "scripts/**/*.test.ts", "mas/**/*.test.ts", "proxy/**/*.test.ts", "examples/**/*.test.ts"];

/**
 * Test files of the pure cores and the presentational components: no database, no processes, no
 * environment variables written, no module mocks. They share one module graph per worker
 * (`isolate: false`): each isolated file re-imported zod, lib/bundle and React on its own, and
 * these 70 files took 26 s (43 CPU-s) isolated against 12 s (21 CPU-s) shared on 2 cores
 * (issue 25 item 4). A file that writes process.env or stubs globals belongs to the other project.
 */
const SHARED_MODULES = [
  "lib/{agreement,annotation,attribution,bundle,experiments,layout,media,otlp,release,repair-search,replay,schemas,stats,symptoms,importers}/**/*.test.ts",
  "lib/*.test.ts",
  "components/**/*.test.tsx",
];

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
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
    sequence: { sequencer: ExamplesFirstSequencer },
    // Vitest runs the projects' files in the order of the projects' names, larger (or, once it has
    // timings, slower) files first: "isolated" first, so the short shared files fill the workers at
    // the end. Sharing the database test files' modules as well was tried (41 files alone 67 -> 31 s)
    // and not kept: the whole suite was no faster (283-310 s against 259-267 s), most likely timers
    // and pollers one file leaves behind running on in the next file's process.
    projects: [
      { extends: true, test: { name: "shared-modules", include: SHARED_MODULES, isolate: false } },
      { extends: true, test: { name: "isolated", include: ALL, exclude: [...SHARED_MODULES, "**/node_modules/**"] } },
    ],
  },
});

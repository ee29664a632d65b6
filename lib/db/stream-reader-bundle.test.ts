/**
 * The stream reader's worker bundle (./stream-reader-bundle.ts): one ES module built from a
 * TypeScript entry and what it imports, reused while its inputs are unchanged, built again when
 * one changes; the real worker's bundle runs (lib/services/import-stream-worker.test.ts reads
 * bundles through it).
 */
import { mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { bundledWorkerFile, moduleBundle } from "./stream-reader-bundle";

describe("moduleBundle", () => {
  test("builds once, reuses while the inputs are unchanged, builds again after a change", async () => {
    const src = mkdtempSync(path.join(os.tmpdir(), "symtrace-bundle-src-"));
    const cache = mkdtempSync(path.join(os.tmpdir(), "symtrace-bundle-cache-"));
    writeFileSync(path.join(src, "dep.ts"), "export const base: number = 40;\n");
    writeFileSync(path.join(src, "entry.ts"), 'import { base } from "./dep";\nimport { createHash } from "node:crypto";\nexport const answer: number = base + 2;\nexport const digest = createHash("sha256").update("x").digest("hex").slice(0, 8);\n');
    const entry = path.join(src, "entry.ts");
    const first = await moduleBundle(entry, cache);
    expect(path.dirname(first)).toBe(cache);
    expect(first).toMatch(/stream-reader-[0-9a-f]{16}\.mjs$/);
    const m = (await import(pathToFileURL(first).href)) as { answer: number; digest: string };
    expect(m).toMatchObject({ answer: 42, digest: "2d711642" });
    const builtAt = statSync(first).mtimeMs;
    expect(await moduleBundle(entry, cache)).toBe(first);
    expect(statSync(first).mtimeMs).toBe(builtAt);
    // A changed input (new text, new mtime): a new bundle.
    writeFileSync(path.join(src, "dep.ts"), "export const base: number = 50;\n");
    utimesSync(path.join(src, "dep.ts"), new Date(), new Date(Date.now() + 5000));
    const second = await moduleBundle(entry, cache);
    expect(second).not.toBe(first);
    expect(((await import(pathToFileURL(second).href)) as { answer: number }).answer).toBe(52);
    expect(readdirSync(cache).filter((f) => f.endsWith(".json"))).toHaveLength(1);
  });

  test("the stream reader's worker bundles (the path the import takes from TypeScript sources)", async () => {
    const f = await bundledWorkerFile(path.join(import.meta.dirname, "stream-reader-worker.ts"));
    expect(f).not.toBeNull();
    expect(f).toContain(path.join("node_modules", ".cache", "symtrace"));
    expect(statSync(f as string).size).toBeGreaterThan(100_000); // lib/bundle with zod inside
  });
});

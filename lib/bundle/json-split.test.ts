/**
 * The split reader (json-split.ts) against the stream-json reader (json-stream.ts): the same
 * handler calls (select, onEnter, onValue, onLeave with their paths and values) for the same
 * file, at chunk sizes that cut strings, escapes, keys and numbers at every position; and
 * JsonStreamError for text that is not one JSON value.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { JsonStreamError, readJsonStream, type JsonKey, type JsonStreamHandler } from "./json-stream";
import { readJsonStreamSplit } from "./json-split";

const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-split-test-"));
const SHARED = path.resolve(import.meta.dirname, "../../../shared");

function write(name: string, text: string | Buffer): string {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
}

/** A handler that descends the first two levels and arrays at the third, logging every call. */
function recorder(): { h: JsonStreamHandler; log: unknown[] } {
  const log: unknown[] = [];
  const h: JsonStreamHandler = {
    select: (p: readonly JsonKey[], kind) => {
      const sel = p.length < 2 || (p.length === 2 && kind === "array") ? "descend" : "assemble";
      log.push(["select", [...p], kind, sel]);
      return sel;
    },
    onValue: (p, v) => log.push(["value", [...p], v]),
    onEnter: (p, k) => log.push(["enter", [...p], k]),
    onLeave: (p, k) => log.push(["leave", [...p], k]),
  };
  return { h, log };
}

async function both(file: string, chunkBytes: number) {
  const a = recorder();
  const b = recorder();
  await readJsonStream(file, a.h, { chunkBytes });
  const r = await readJsonStreamSplit(file, b.h, { chunkBytes, sha256: true });
  return { ref: a.log, got: b.log, r };
}

const TRICKY =
  '\ufeff{ "a" : [ 1, -2.5e3, "x\\"y\\\\", "\\\\", "\\u00e9\u00e9\ud83d\ude00", true, false, null, {"k\\"": [[], {}]}, [] ],\n' +
  '"graph": {"nodes": [{"id": "n\\\\\\"1", "deep": {"x": [1, {"y": "}]"}]}}, {"id": "n2"}], "edges": [], "meta": {"p": "[{"}},\n' +
  '"__proto__": {"p": 1}, "n": 0, "s": "", "t": true, "z": null, "e": {}, "l": [] }\n';

describe("readJsonStreamSplit: the same calls as the stream-json reader", () => {
  test.each([1, 2, 3, 5, 7, 64, 1 << 20])("tricky strings, escapes and nesting, chunks of %i bytes", async (chunk) => {
    const f = write(`tricky-${chunk}.json`, TRICKY);
    const { ref, got, r } = await both(f, chunk);
    expect(got).toEqual(ref);
    expect(got.length).toBeGreaterThan(30);
    expect(r.bytes).toBe(Buffer.byteLength(TRICKY));
  });

  test("a shared gold bundle, chunks of 97 bytes; root primitives and arrays", async () => {
    const gold = path.join(SHARED, "fixtures/bundles/gold-c2.bundle.json");
    const { ref, got } = await both(gold, 97);
    expect(got).toEqual(ref);
    for (const text of ["123", ' "s" ', "[1,[2],{}]", "-0.5e-3\n", "null"]) {
      const { ref: r2, got: g2 } = await both(write("root.json", text), 2);
      expect(g2).toEqual(r2);
      expect(g2.length).toBeGreaterThan(0);
    }
    const proto = recorder();
    await readJsonStreamSplit(write("proto.json", '{"x": [{"__proto__": {"p": 1}}]}'), proto.h);
    const v = proto.log.find((e) => (e as unknown[])[0] === "value") as [string, JsonKey[], Record<string, unknown>];
    expect(Object.keys(v[2])).toEqual(["__proto__"]);
  });

  test.each([
    ["empty", " \n", /empty file: no JSON value/],
    ["truncated in a string", '{"a": ["x', /truncated\?\) at end of input, byte 9/],
    ["truncated after a key", '{"graph": {"nodes": [', /truncated\?\) at end of input/],
    ["bad literal", '{"a": nope}', /invalid JSON at byte 6: unexpected "n"|invalid JSON between bytes 6 and 10/],
    ["bad literal in a descended object", '{"a": {"b": tru}}', /invalid JSON between bytes 12 and 15/],
    ["bad inside an assembled value", '{"a": {"b": {"c": tru}}}', /invalid JSON between bytes 12 and 22/],
    ["missing colon", '{"a" 1}', /invalid JSON at byte 5: expected ":"/],
    ["trailing comma", '{"a": 1,}', /invalid JSON at byte 8/],
    ["data after the value", '{"a": 1} {}', /unexpected data after the JSON value/],
    ["mismatched brackets", '{"a": [1, 2}]}', /invalid JSON at byte 11: unexpected "}" after a value/],
    ["mismatched brackets in an assembled value", '{"a": {"b": {"c": [1, 2}]}}}', /invalid JSON between bytes 12 and 25/],
  ])("%s: JsonStreamError", async (_name, text, re) => {
    const f = write("bad.json", text);
    const p = readJsonStreamSplit(f, recorder().h, { chunkBytes: 3 });
    await expect(p).rejects.toBeInstanceOf(JsonStreamError);
    await expect(readJsonStreamSplit(f, recorder().h, { chunkBytes: 3 })).rejects.toThrow(re);
    // and the stream-json reader refuses it too
    await expect(readJsonStream(f, recorder().h, { chunkBytes: 3 })).rejects.toThrow();
  });

  test("the file's sha256 covers every byte", async () => {
    const f = write("sha.json", TRICKY);
    const { r } = await both(f, 5);
    const { createHash } = await import("node:crypto");
    expect(r.sha256).toBe(createHash("sha256").update(readFileSync(f)).digest("hex"));
  });
});

/** {@link recorder} whose handler also promises `assemblesEach` for the arrays at the second level. */
function runRecorder(): { h: JsonStreamHandler; log: unknown[] } {
  const r = recorder();
  r.h.assemblesEach = (p) => p.length === 2;
  return r;
}

/** The log without `select` calls for elements of the second-level arrays (a run skips them). */
const withoutElementSelects = (log: unknown[]) => log.filter((e) => !((e as unknown[])[0] === "select" && ((e as unknown[])[1] as JsonKey[]).length === 3));

describe("readJsonStreamSplit: runs of whole elements (assemblesEach)", () => {
  // One element per line, as lib/bundle writes bundle files; strings with brackets, escapes,
  // multi-byte characters and "\n]" inside them; an empty array; an array that ends mid-chunk.
  const lines = Array.from({ length: 300 }, (_, i) => JSON.stringify({ id: `n${i}`, text: `é}${"]".repeat(i % 3)},\\n] "q" ${"😀".repeat(i % 4)}`, deep: [[i], { x: i % 2 ? null : -i / 7 }] }));
  const ONE_PER_LINE = `{"format":"x","graph":{"nodes":[\n${lines.join(",\n")}\n],\n"edges":[\n],"meta":{"m":[1,2]}},\n"order":[\n${lines.map((_, i) => `"n${i}"`).join(",\n")}\n],\n"records":[[1,\n2],\n3,\n{"a":\n1}],"end":true}\n`;

  test.each([64, 1000, 4096, 1 << 20])("the same values and paths as the stream-json reader, chunks of %i bytes", async (chunk) => {
    const f = write(`runs-${chunk}.json`, ONE_PER_LINE);
    const a = recorder();
    const b = runRecorder();
    await readJsonStream(f, a.h, { chunkBytes: chunk });
    const r = await readJsonStreamSplit(f, b.h, { chunkBytes: chunk, sha256: true });
    expect(withoutElementSelects(b.log)).toEqual(withoutElementSelects(a.log));
    expect(b.log.filter((e) => (e as unknown[])[0] === "value").length).toBe(1 + 300 + 1 + 300 + 4 + 1); // format, nodes, graph.meta, order, records (one descended), end
    // Runs did deliver most elements (no select call for them); the scanner took the rest.
    const elementSelects = (log: unknown[]) => log.length - withoutElementSelects(log).length;
    expect(elementSelects(a.log)).toBe(300);
    expect(elementSelects(b.log)).toBeLessThan(chunk >= 4096 ? 10 : chunk >= 1000 ? 150 : 301); // 64-byte chunks cut every line
    expect(r.bytes).toBe(Buffer.byteLength(ONE_PER_LINE));
  });

  test("a pretty-printed file (runs never parse) gives the same values", async () => {
    const f = write("runs-pretty.json", JSON.stringify(JSON.parse(ONE_PER_LINE), null, 2));
    const a = recorder();
    const b = runRecorder();
    await readJsonStream(f, a.h, { chunkBytes: 4096 });
    await readJsonStreamSplit(f, b.h, { chunkBytes: 4096 });
    expect(withoutElementSelects(b.log)).toEqual(withoutElementSelects(a.log));
  });

  test.each([
    ["a bad element inside a run", `{"graph":{"nodes":[\n{"id":"a"},\n{"id":"b"},\n{"id":tru},\n{"id":"c"}\n]}}`, /invalid JSON between bytes 44 and 54/],
    ["a missing comma between elements", `{"graph":{"nodes":[\n{"id":"a"},\n{"id":"b"}\n{"id":"c"},\n{"id":"d"}\n]}}`, /invalid JSON at byte 43: unexpected "\{" after a value/],
    ["a trailing comma before the end", `{"graph":{"nodes":[\n{"id":"a"},\n{"id":"b"},\n]}}\n`, /invalid JSON at byte 44: unexpected "\]" where a value was expected/],
    ["two commas", `{"graph":{"nodes":[\n{"id":"a"},\n{"id":"b"},\n,{"id":"c"}\n]}}\n`, /invalid JSON at byte 44: unexpected "," where a value was expected/],
  ])("%s: the same JsonStreamError as without runs", async (_name, text, re) => {
    const f = write("runs-bad.json", text);
    await expect(readJsonStreamSplit(f, recorder().h)).rejects.toThrow(re);
    await expect(readJsonStreamSplit(f, runRecorder().h)).rejects.toThrow(re);
    await expect(readJsonStreamSplit(f, runRecorder().h)).rejects.toBeInstanceOf(JsonStreamError);
  });
});

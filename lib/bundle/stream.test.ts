/**
 * Streaming validation and hashing (issue 16 item 3) against the in-memory path: on the shared
 * fixtures, on bundles imported from the shared datasets and on synthetic bundles, the streamed
 * bundle hash equals sha256(JCS(bundle)) of the validated bundle, the sink receives every part,
 * and invalid bundles give the same (path, rule) issues as validateBundle.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { canonicalJson, sha256Tagged } from "./hash";
import { parseJsonText } from "./json-text";
import { readJsonFileValue, JsonStreamError } from "./json-stream";
import { streamBundleFile, type BundleStreamResult } from "./stream";
import { syntheticBundle } from "./synthetic";
import { writeSyntheticBundleFile } from "./synthetic-file";
import { serializeBundle } from "./build";
import { validateBundle } from "./validate";
import { importText } from "../importers";

const SHARED = path.resolve(import.meta.dirname, "../../../shared");
const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-stream-test-"));
const hashOf = (v: unknown) => sha256Tagged(canonicalJson(v));

async function stream(file: string) {
  const got = { nodes: [] as Array<[string, number, number]>, edges: 0, records: [] as number[] };
  const res: BundleStreamResult = await streamBundleFile(file, {
    node: (n, idx, orderIndex) => got.nodes.push([n.id as string, idx, orderIndex]),
    edge: () => got.edges++,
    record: (_r, seq) => got.records.push(seq),
  });
  return { res, got };
}

function writeTmp(name: string, text: string): string {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
}

describe("streamBundleFile: the same hash as the in-memory path", () => {
  const fixtureDir = path.join(SHARED, "fixtures/bundles");
  const fixtures = readdirSync(fixtureDir).filter((f) => f.endsWith(".bundle.json"));

  test.each(fixtures)("shared fixture %s", async (name) => {
    const file = path.join(fixtureDir, name);
    const mem = validateBundle(parseJsonText(readFileSync(file, "utf8")));
    expect(mem.ok).toBe(true);
    const { res, got } = await stream(file);
    expect(res.issues).toEqual([]);
    expect(res.ok).toBe(true);
    expect(res.bundleHash).toBe(hashOf(mem.bundle));
    expect(got.nodes.map((n) => n[0])).toEqual(mem.bundle!.graph.nodes.map((n) => n.id));
    expect(got.edges).toBe(mem.bundle!.graph.edges.length);
    expect(got.records).toEqual(mem.bundle!.records.map((_r, i) => i));
    expect(res.counts.nodes).toBe(mem.bundle!.graph.nodes.length);
    const agentOf = new Map(mem.bundle!.graph.nodes.map((n) => [n.id, n.agent ?? null]));
    expect(res.lanes).toEqual([...new Set(mem.bundle!.order.map((id) => agentOf.get(id) ?? null))]);
    // orderIndex given to the sink, corrected by orderFixes, is the position in `order`
    const fixes = new Map(res.orderFixes());
    for (const [id, , oi] of got.nodes) expect(fixes.get(id) ?? oi).toBe(mem.bundle!.order.indexOf(id));
  });

  // The samples (the full Who&When set, 184 logs, has its own import test: lib/importers/who-and-when-full.test.ts)
  test("bundles imported from every shared dataset sample file (Who&When, MAD, Langfuse)", async () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const f = path.join(d, e.name);
        if (e.isDirectory()) {
          if (e.name !== "who_and_when_full") walk(f);
        } else if (e.name.endsWith(".json")) files.push(f);
      }
    };
    walk(path.join(SHARED, "datasets"));
    let compared = 0;
    for (const f of files) {
      const r = importText(readFileSync(f, "utf8"), f);
      for (const c of r.cases) {
        const file = writeTmp(`ds-${compared}.json`, serializeBundle(c.bundle));
        const { res } = await stream(file);
        expect(res.issues, `${f}#${c.bundle.id}`).toEqual([]);
        expect(res.bundleHash, `${f}#${c.bundle.id}`).toBe(hashOf(c.bundle));
        compared++;
      }
    }
    expect(compared).toBe(23);
  });

  test("a synthetic bundle written as a stream (keys in another order, order after nodes) hashes like syntheticBundle", async () => {
    const file = path.join(dir, "synthetic-60.json");
    const w = await writeSyntheticBundleFile(file, { id: "s/60", turns: 60, seed: 9 });
    expect(w.nodes).toBe(242);
    const mem = syntheticBundle({ id: "s/60", turns: 60, seed: 9 });
    const { res } = await stream(file);
    expect(res.ok).toBe(true);
    expect(res.bundleHash).toBe(hashOf(mem));
    expect(res.counts).toMatchObject({ nodes: 242, edges: mem.graph.edges.length, records: 120, agents: 5 });
  });

  test("the member texts handed to the sink are JSON.stringify of content, request, response and meta (their own key order)", async () => {
    const file = path.join(dir, "synthetic-member-json.json");
    await writeSyntheticBundleFile(file, { id: "s/json", turns: 12, seed: 4 });
    const mem = syntheticBundle({ id: "s/json", turns: 12, seed: 4 });
    const texts: { nodes: Array<string | undefined>; records: Array<Array<string | undefined>> } = { nodes: [], records: [] };
    const res = await streamBundleFile(file, {
      node: (n, _i, _o, json) => texts.nodes.push(json?.content),
      edge: () => {},
      record: (_r, _s, json) => texts.records.push([json?.request, json?.response, json?.meta]),
    });
    expect(res.ok).toBe(true);
    expect(texts.nodes).toEqual(mem.graph.nodes.map((n) => JSON.stringify(n.content)));
    expect(texts.records).toEqual(mem.records.map((r) => [JSON.stringify(r.request), JSON.stringify(r.response), r.meta === undefined ? undefined : JSON.stringify(r.meta)]));
    // Not canonical: the stored text keeps the bundle's member order.
    expect(texts.nodes.filter((t) => t !== canonicalJson(JSON.parse(t as string))).length).toBeGreaterThan(10);
  });

  test("spools past their 4 MiB buffers (writes in flight, an element larger than a buffer) hash like the in-memory bundle", async () => {
    const b = syntheticBundle({ id: "big-spool", turns: 400, seed: 8 });
    const big = b.graph.nodes[1];
    big.content = { text: "é".repeat(1_500_000) + "x".repeat(3_000_000) };
    big.contentHash = hashOf(big.content);
    const file = writeTmp("big-spool.json", JSON.stringify(b));
    const { res, got } = await stream(file);
    expect(res.issues).toEqual([]);
    expect(res.bundleHash).toBe(hashOf(b));
    expect(got.nodes.length).toBe(1602);
  }, 60_000);

  test("order before the nodes, permuted: positions are known at once (no fixes); after the nodes: fixes", async () => {
    const b = syntheticBundle({ id: "perm", turns: 2, seed: 3 });
    const before = writeTmp("order-first.json", JSON.stringify(Object.assign({ order: b.order }, b)));
    const r1 = await stream(before);
    expect(r1.res.ok).toBe(true);
    expect([...r1.res.orderFixes()]).toEqual([]);
    expect(r1.res.bundleHash).toBe(hashOf(b));
    // nodes listed in reverse: their idx differs from their position in order
    const rev = { ...b, graph: { ...b.graph, nodes: [...b.graph.nodes].reverse() } };
    const after = writeTmp("nodes-reversed.json", JSON.stringify(rev));
    const r2 = await stream(after);
    expect(r2.res.ok).toBe(true);
    expect(r2.res.bundleHash).toBe(hashOf(rev));
    const fixes = new Map(r2.res.orderFixes());
    for (const [id, idx, oi] of r2.got.nodes) {
      expect(oi).toBe(idx);
      expect(fixes.get(id) ?? oi).toBe(b.order.indexOf(id));
    }
    expect(fixes.size).toBe(10); // 10 nodes reversed: none keeps its index
  });
});

describe("streamBundleFile: invalid bundles", () => {
  const badDir = path.join(import.meta.dirname, "fixtures");
  const bad = readdirSync(badDir).filter((f) => f.endsWith(".bundle.json") && f !== "truncated.bundle.json");
  test.each(bad)("%s: the same (path, rule) issues as validateBundle, nothing hashed", async (name) => {
    const file = path.join(badDir, name);
    const mem = validateBundle(parseJsonText(readFileSync(file, "utf8")));
    expect(mem.ok).toBe(false);
    const { res } = await stream(file);
    expect(res.ok).toBe(false);
    expect(res.bundleHash).toBeNull();
    const key = (i: { path: string; rule: string }) => `${i.rule} ${i.path}`;
    expect(res.issues.map(key).sort()).toEqual(mem.issues.map(key).sort());
    expect(res.issues.map((i) => i.message).sort()).toEqual(mem.issues.map((i) => i.message).sort());
  });

  test("a truncated file is a JsonStreamError naming the end of input", async () => {
    await expect(stream(path.join(badDir, "truncated.bundle.json"))).rejects.toThrow(/truncated\?\) at end of input/);
  });

  test("schema problems get the element's JSON path; missing top-level parts are reported", async () => {
    const b = syntheticBundle({ id: "bad", turns: 1, seed: 1 }) as unknown as Record<string, unknown>;
    const g = b.graph as { nodes: Array<Record<string, unknown>> };
    g.nodes[2] = { ...g.nodes[2], type: "thinking" };
    delete b.records;
    const { res } = await stream(writeTmp("bad-schema.json", JSON.stringify(b)));
    const mem = validateBundle(b);
    expect(res.ok).toBe(false);
    const key = (i: { path: string; rule: string }) => `${i.rule} ${i.path}`;
    expect(res.issues.map(key).sort()).toEqual(mem.issues.map(key).sort());
    expect(res.issues.map(key)).toContain("schema $.graph.nodes[2].type");
  });

  test("not JSON at all and an empty file", async () => {
    await expect(stream(writeTmp("not-json.json", '{"format": nope}'))).rejects.toBeInstanceOf(JsonStreamError);
    await expect(stream(writeTmp("empty.json", "  \n"))).rejects.toThrow(/empty file/);
  });
});

describe("readJsonFileValue", () => {
  test("equals JSON.parse (own __proto__ key included); unsafe integers kept as strings on request", async () => {
    const text = '{"a":[1,2.5,-3e2,"x\\u00e9",true,false,null],"__proto__":{"p":1},"big":12345678901234567890,"n":{"m":{}}}';
    const f = writeTmp("value.json", text);
    const plain = await readJsonFileValue(f);
    expect(plain.value).toEqual(JSON.parse(text));
    expect(Object.getPrototypeOf(plain.value)).toBe(Object.prototype);
    const lossless = await readJsonFileValue(f, { bigIntsAsStrings: true, sha256: true });
    expect((lossless.value as { big: unknown }).big).toBe("12345678901234567890");
    expect(lossless.sha256).toBe(sha256Tagged(text).slice("sha256:".length));
  });
});

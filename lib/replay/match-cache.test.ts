/**
 * Issue 25 item 5: the match hashes of recorded requests under id renaming, kept across sessions
 * (match-cache.ts), and the copy-free hash of a renamed request (rename.ts `CanonicalRenaming` + lib/bundle
 * `hashJsonReplacing`). Both give exactly the hash of the renamed copy (`renameInventedIds`).
 */
import { describe, expect, test } from "vitest";
import { hashJson, hashJsonReplacing, type ReplayBundle } from "../bundle";
import type { MaskedValue } from "./masks";
import { MatchHashCache, producedKeyOf, recordMatchHashes, transformKeyOf } from "./match-cache";
import { CanonicalRenaming, producedIds, renameInventedIds } from "./rename";
import { RecordSession, ReplaySession } from "./index";

const reply = (n: number) => ({ id: `cmpl-${n}`, object: "chat.completion", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: `answer ${n}` } }] });

/** One llm record whose request carries two client-invented ids in sibling objects, in the given key order. */
function recordTwoIds(order: "ab" | "ba", ids: [string, string] = ["inv-a", "inv-b"]): ReplayBundle {
  const rec = new RecordSession({ id: `t/two-ids-${order}`, task: { prompt: "x" } });
  const a = { id: ids[0] };
  const b = { id: ids[1] };
  const request = order === "ab" ? { model: "m", messages: [{ role: "user", content: "x" }], a, b } : { model: "m", messages: [{ role: "user", content: "x" }], b, a };
  const st = rec.begin({ boundary: "llm", request });
  if (st.kind !== "live") throw new Error(st.kind);
  rec.complete(st.ticket, { response: reply(0), httpStatus: 200 });
  return rec.toBundle({ final: "done" });
}

const liveTwoIds = (order: "ab" | "ba") => {
  const a = { id: "fresh-1" };
  const b = { id: "fresh-2" };
  return order === "ab" ? { model: "m", messages: [{ role: "user", content: "x" }], a, b } : { model: "m", messages: [{ role: "user", content: "x" }], b, a };
};

describe("CanonicalRenaming + hashJsonReplacing: the hash of the renamed request without copying it", () => {
  const produced = new Set(["call_model_0"]);
  const samples: unknown[] = [
    { model: "m", messages: [{ role: "assistant", tool_calls: [{ id: "u-1", type: "function", function: { name: "t", arguments: "{}" } }] }, { role: "tool", tool_call_id: "u-1", content: "ok" }, { role: "tool", tool_call_id: "call_model_0", content: "kept" }] },
    { input: [{ type: "function_call_output", call_id: "c-9", output: "x" }, { type: "function_call", call_id: "c-8", id: "fc-1" }], nested: [[{ tool_use_id: "t/1~2" }]] },
    { b: { id: "x" }, a: { id: "y" }, c: ["id", { id: 3 }, null, "y"] },
    { messages: [], id: "call_model_0" },
    "a string request",
    null,
  ];

  test("same names, same hits and the same hash as renameInventedIds then hashJson", () => {
    for (const s of samples) {
      const hitsCopy: MaskedValue[] = [];
      const hitsWalk: MaskedValue[] = [];
      const renamed = renameInventedIds(s, produced, hitsCopy);
      const renaming = new CanonicalRenaming(produced, hitsWalk);
      expect(hashJsonReplacing(s, renaming)).toBe(hashJson(renamed));
      expect(hitsWalk).toEqual(hitsCopy);
    }
    // Names are given in order of first occurrence in canonical order (keys sorted, arrays by index).
    const r = new CanonicalRenaming(produced);
    hashJsonReplacing({ input: [{ call_id: "c-9" }, { id: "c-9", call_id: "c-8" }] }, r);
    expect([...r.names]).toEqual([
      ["c-9", "symtrace:id:0"],
      ["c-8", "symtrace:id:1"],
    ]);
    // Key order does not decide the numbering: "a" sorts before "b".
    const third = new CanonicalRenaming(produced);
    hashJsonReplacing(samples[2], third);
    expect([...third.names]).toEqual([
      ["y", "symtrace:id:0"],
      ["x", "symtrace:id:1"],
    ]);
    expect(renameInventedIds(samples[2], produced)).toEqual({ b: { id: "symtrace:id:1" }, a: { id: "symtrace:id:0" }, c: ["id", { id: 3 }, null, "y"] });
    // An escaped pointer for "~" and "/" in keys.
    const hits: MaskedValue[] = [];
    hashJsonReplacing({ "a/b": { "~": { id: "z" } } }, new CanonicalRenaming(produced, hits));
    expect(hits).toEqual([{ pointer: "/a~1b/~0/id", rule: "rename", from: "z", to: "symtrace:id:0" }]);
  });

  test("a value that is not as JSON.parse returns it takes the library's path with the same result, and its hits once", () => {
    const withToJson = { id: "u-1", when: { toJSON: () => "2026" } };
    const hits: MaskedValue[] = [{ pointer: "/earlier", rule: "rename", from: "a", to: "b" }];
    expect(hashJsonReplacing(withToJson, new CanonicalRenaming(produced, hits))).toBe(hashJson({ id: "symtrace:id:0", when: "2026" }));
    expect(hits.map((h) => h.pointer)).toEqual(["/earlier", "/id"]);
    expect(() => hashJsonReplacing({ id: "u", text: "\ud800" }, new CanonicalRenaming(produced))).toThrow(/Lone surrogate/);
  });
});

describe("MatchHashCache", () => {
  test("keeps at most maxEntries, dropping the oldest; rejects a bad bound", () => {
    const c = new MatchHashCache(2);
    c.set("k1", "h1");
    c.set("k2", "h2");
    c.set("k3", "h3");
    expect(c.size).toBe(2);
    expect(c.get("k1")).toBeUndefined();
    expect(c.get("k2")).toBe("h2");
    expect(c.get("k3")).toBe("h3");
    c.clear();
    expect(c.size).toBe(0);
    expect(() => new MatchHashCache(0)).toThrow(/positive integer/);
  });

  test("keys differ by transform, boundary, request hash and produced ids; the produced key is unambiguous", () => {
    const k = (t: string, b: string, h: string, p: string) => MatchHashCache.key(t, b, h, p);
    const p1 = producedKeyOf(new Set(["a", "b"]));
    const base = k("", "llm", "sha256:1", p1);
    expect(new Set([base, k("t", "llm", "sha256:1", p1), k("", "tool", "sha256:1", p1), k("", "llm", "sha256:2", p1), k("", "llm", "sha256:1", ""), k("", "llm", "sha256:1", producedKeyOf(new Set(["a"])))]).size).toBe(6);
    // Set order does not matter; ids that hold the separator of a naive join do not collide.
    expect(producedKeyOf(new Set(["b", "a"]))).toBe(p1);
    expect(producedKeyOf(new Set(["x\u0000y", "z"]))).not.toBe(producedKeyOf(new Set(["x", "y\u0000z"])));
    expect(transformKeyOf(undefined)).toBe("");
    expect(transformKeyOf([])).toBe("");
    expect(transformKeyOf([{ pattern: "x" }])).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe("ReplaySession with the shared memo", () => {
  test("a second replay of a recording reuses its renamed hashes and matches the same", () => {
    recordMatchHashes.clear();
    const b = recordTwoIds("ab");
    const first = new ReplaySession({ source: b });
    expect(first.begin({ boundary: "llm", request: liveTwoIds("ab") })).toMatchObject({ kind: "recorded", seq: 0 });
    expect(recordMatchHashes.size).toBe(1);
    // The same content loaded again (a new object, as from the database): one entry, still a match.
    const again = new ReplaySession({ source: structuredClone(b) });
    expect(again.begin({ boundary: "llm", request: liveTwoIds("ab") })).toMatchObject({ kind: "recorded", seq: 0 });
    expect(recordMatchHashes.size).toBe(1);
    expect(again.maskReport!.masked.map((m) => [m.pointer, m.to])).toEqual([
      ["/a/id", "symtrace:id:0"],
      ["/b/id", "symtrace:id:1"],
    ]);
  });

  test("the same request content in another key order is renamed alike (canonical order): each recording matches either live order", () => {
    // Equal requestHash (canonical JSON ignores key order), and renaming numbers ids in canonical
    // order too, so {a, b} and {b, a} rename to the same request: one memo entry serves both.
    const ab = recordTwoIds("ab");
    const ba = recordTwoIds("ba");
    expect(ab.records[0].requestHash).toBe(ba.records[0].requestHash);
    recordMatchHashes.clear();
    for (const source of [ab, ba]) {
      for (const live of ["ab", "ba"] as const) expect(new ReplaySession({ source }).begin({ boundary: "llm", request: liveTwoIds(live) }).kind).toBe("recorded");
    }
    expect(recordMatchHashes.size).toBe(1);
    // Ids swapped between the positions are a different request: no match.
    const swapped = { model: "m", messages: [{ role: "user", content: "x" }], a: { id: "fresh-1" }, b: { id: "fresh-1" } };
    expect(new ReplaySession({ source: ab }).begin({ boundary: "llm", request: swapped }).kind).toBe("diverged");
  });

  test("a record whose invented ids the responses produced in another bundle is not confused with it", () => {
    // Same request content; in the second bundle a response produced "inv-a", so only "inv-b" is invented there.
    recordMatchHashes.clear();
    const plain = recordTwoIds("ab");
    const produced = structuredClone(plain);
    (produced.records[0].response as { id: string }).id = "inv-a";
    expect(producedIds(produced.records).has("inv-a")).toBe(true);
    expect(new ReplaySession({ source: plain }).begin({ boundary: "llm", request: liveTwoIds("ab") }).kind).toBe("recorded");
    // There the live request must carry "inv-a" itself (a produced id is kept verbatim).
    const live = liveTwoIds("ab");
    expect(new ReplaySession({ source: produced, }).begin({ boundary: "llm", request: live }).kind).toBe("diverged");
    expect(new ReplaySession({ source: produced }).begin({ boundary: "llm", request: { ...live, a: { id: "inv-a" } } }).kind).toBe("recorded");
  });
});

/**
 * Issue 25 item 5: the match hashes of recorded requests under id renaming, kept across sessions
 * (match-cache.ts), and the copy-free hash of a renamed request (rename.ts `renamingOf` + lib/bundle
 * `hashJsonReplacing`). Both must leave what matches exactly as it was.
 */
import { describe, expect, test } from "vitest";
import { hashJson, hashJsonReplacing, type ReplayBundle } from "../bundle";
import type { MaskedValue } from "./masks";
import { MatchHashCache, recordMatchHashes, transformKeyOf } from "./match-cache";
import { ID_KEYS, producedIds, renameInventedIds, renamingOf } from "./rename";
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

describe("renamingOf + hashJsonReplacing: the hash of the renamed request without copying it", () => {
  const produced = new Set(["call_model_0"]);
  const samples: unknown[] = [
    { model: "m", messages: [{ role: "assistant", tool_calls: [{ id: "u-1", type: "function", function: { name: "t", arguments: "{}" } }] }, { role: "tool", tool_call_id: "u-1", content: "ok" }, { role: "tool", tool_call_id: "call_model_0", content: "kept" }] },
    { input: [{ type: "function_call_output", call_id: "c-9", output: "x" }, { type: "function_call", call_id: "c-8", id: "fc-1" }], nested: [[{ tool_use_id: "t/1~2" }]] },
    { a: { id: "x" }, b: { id: "y" }, c: ["id", { id: 3 }, null, "y"] },
    { messages: [], id: "call_model_0" },
    "a string request",
    null,
  ];

  test("same names, same hits and the same hash as renameInventedIds then hashJson", () => {
    for (const s of samples) {
      const hitsCopy: MaskedValue[] = [];
      const hitsWalk: MaskedValue[] = [];
      const renamed = renameInventedIds(s, produced, hitsCopy);
      const names = renamingOf(s, produced, hitsWalk);
      expect(hitsWalk).toEqual(hitsCopy);
      expect(hashJsonReplacing(s, { keys: ID_KEYS, map: names })).toBe(hashJson(renamed));
    }
    // Names are given in order of first occurrence; an escaped pointer for "~" and "/" in keys.
    const names = renamingOf({ input: [{ call_id: "c-9" }, { call_id: "c-8", id: "c-9" }] }, produced);
    expect([...names]).toEqual([
      ["c-9", "symtrace:id:0"],
      ["c-8", "symtrace:id:1"],
    ]);
    const hits: MaskedValue[] = [];
    renamingOf({ "a/b": { "~": { id: "z" } } }, produced, hits);
    expect(hits).toEqual([{ pointer: "/a~1b/~0/id", rule: "rename", from: "z", to: "symtrace:id:0" }]);
  });

  test("a value that is not as JSON.parse returns it takes the library's path with the same result", () => {
    const withToJson = { id: "u-1", when: { toJSON: () => "2026" } };
    const names = renamingOf(withToJson, produced);
    expect(hashJsonReplacing(withToJson, { keys: ID_KEYS, map: names })).toBe(hashJson({ id: "symtrace:id:0", when: "2026" }));
    expect(() => hashJsonReplacing({ id: "u", text: "\ud800" }, { keys: ID_KEYS, map: new Map([["u", "v"]]) })).toThrow(/Lone surrogate/);
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

  test("keys differ by transform, boundary, request hash, and the order and number of invented ids", () => {
    const k = (t: string, b: string, h: string, ids: string[]) => MatchHashCache.key(t, b, h, ids);
    const base = k("", "llm", "sha256:1", ["a", "b"]);
    expect(new Set([base, k("t", "llm", "sha256:1", ["a", "b"]), k("", "tool", "sha256:1", ["a", "b"]), k("", "llm", "sha256:2", ["a", "b"]), k("", "llm", "sha256:1", ["b", "a"]), k("", "llm", "sha256:1", ["a\u0000b"]), k("", "llm", "sha256:1", [])]).size).toBe(7);
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

  test("the same request content in another key order is renamed in its own order (no false hit)", () => {
    // Equal requestHash (canonical JSON ignores key order), but renaming numbers ids by document
    // order: {a:0, b:1} versus {b:0, a:1}. Without the memo a live request in order "ab" matches
    // only the "ab" recording; the memo must not change that, whichever recording was seen first.
    const ab = recordTwoIds("ab");
    const ba = recordTwoIds("ba");
    expect(ab.records[0].requestHash).toBe(ba.records[0].requestHash);
    for (const seenFirst of [ab, ba]) {
      recordMatchHashes.clear();
      new ReplaySession({ source: seenFirst }).begin({ boundary: "llm", request: liveTwoIds("ab") });
      expect(new ReplaySession({ source: ab }).begin({ boundary: "llm", request: liveTwoIds("ab") }).kind).toBe("recorded");
      expect(new ReplaySession({ source: ba }).begin({ boundary: "llm", request: liveTwoIds("ab") }).kind).toBe("diverged");
      expect(new ReplaySession({ source: ba }).begin({ boundary: "llm", request: liveTwoIds("ba") }).kind).toBe("recorded");
    }
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

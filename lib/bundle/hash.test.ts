/**
 * Canonical JSON (RFC 8785) and the sha256 hashes of spec bundle-v1 §Hashing.
 * Expected values are literals from RFC 8785 (§3.2.2, §3.2.3, §3.2.4, Appendix B) or computed
 * here with node:crypto from the literal canonical string, never via the code under test.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { canonicalJson, hashContent, hashRequest, sha256Tagged, type ReplayBundle } from "./index";
import { canonicalAndJsonOfParsed, canonicalJsonOfParsed, canonicalJsonWith } from "./hash";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");
const gold = (c: string): ReplayBundle =>
  JSON.parse(readFileSync(path.join(SHARED, "fixtures/bundles", `gold-${c}.bundle.json`), "utf8"));

const sha = (s: string) => "sha256:" + createHash("sha256").update(Buffer.from(s, "utf8")).digest("hex");
const fromHex = (h: string) => Buffer.from(h, "hex").readDoubleBE(0);

describe("canonicalJson: RFC 8785", () => {
  test("the RFC 8785 §3.2.2 example (parsed from its JSON text)", () => {
    const input =
      '{\n  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n' +
      '  "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",\n' +
      '  "literals": [null, true, false]\n}';
    expect(canonicalJson(JSON.parse(input))).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  test.each([
    ["nested keys sorted at every level", { b: 1, a: { d: 2, c: [{ z: 0, y: 1 }] } }, '{"a":{"c":[{"y":1,"z":0}],"d":2},"b":1}'],
    ["keys sorted by UTF-16 code units, not locale (RFC 8785 §3.2.3)",
      { "\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One",
        "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis" },
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}'],
    ["uppercase before lowercase, digits before letters", { b: 0, B: 0, a: 0, A: 0, "10": 0, "9": 0 }, '{"10":0,"9":0,"A":0,"B":0,"a":0,"b":0}'],
    ["nested arrays keep their order (RFC 8785 §3.2.4 example)", [56, { d: true, "10": null, "1": [] }], '[56,{"1":[],"10":null,"d":true}]'],
    ["deeply nested arrays", [[[], [[1, [2]]]], [{}]], "[[[],[[1,[2]]]],[{}]]"],
    ["no whitespace anywhere", { a: [1, 2, { b: "x y" }] }, '{"a":[1,2,{"b":"x y"}]}'],
    ["literals", [null, true, false], "[null,true,false]"],
    ["empty containers", { a: {}, b: [] }, '{"a":{},"b":[]}'],
  ])("%s", (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  test.each([
    [1e21, "1e+21"],
    [0.000001, "0.000001"],
    [1e-7, "1e-7"],
    [-0, "0"],
    [1.0, "1"],
    [4.5, "4.5"],
    [-1.5e-9, "-1.5e-9"],
    [1e20, "100000000000000000000"],
    [123456789012, "123456789012"],
    [0.1 + 0.2, "0.30000000000000004"],
  ])("number %d is written %s", (n, expected) => {
    expect(canonicalJson(n)).toBe(expected);
    expect(canonicalJson([n])).toBe(`[${expected}]`);
  });

  test("number literal 1.0 in JSON text canonicalizes to 1", () => {
    expect(canonicalJson(JSON.parse('{"x": 1.0, "y": 1.50, "z": 1E2}'))).toBe('{"x":1,"y":1.5,"z":100}');
  });

  // RFC 8785 Appendix B: IEEE 754 bit patterns and their serialization.
  test.each([
    ["0000000000000000", "0"],
    ["8000000000000000", "0"],
    ["0000000000000001", "5e-324"],
    ["8000000000000001", "-5e-324"],
    ["7fefffffffffffff", "1.7976931348623157e+308"],
    ["ffefffffffffffff", "-1.7976931348623157e+308"],
    ["4340000000000000", "9007199254740992"],
    ["c340000000000000", "-9007199254740992"],
    ["4430000000000000", "295147905179352830000"],
    ["44b52d02c7e14af5", "9.999999999999997e+22"],
    ["44b52d02c7e14af6", "1e+23"],
    ["44b52d02c7e14af7", "1.0000000000000001e+23"],
    ["444b1ae4d6e2ef4e", "999999999999999700000"],
    ["444b1ae4d6e2ef4f", "999999999999999900000"],
    ["444b1ae4d6e2ef50", "1e+21"],
    ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ["3eb0c6f7a0b5ed8d", "0.000001"],
    ["41b3de4355555553", "333333333.3333332"],
    ["41b3de4355555554", "333333333.33333325"],
    ["41b3de4355555555", "333333333.3333333"],
    ["41b3de4355555556", "333333333.3333334"],
    ["41b3de4355555557", "333333333.33333343"],
    ["becbf647612f3696", "-0.0000033333333333333333"],
    ["43143ff3c1cb0959", "1424953923781206.2"],
  ])("Appendix B: 0x%s -> %s", (hex, expected) => {
    expect(canonicalJson(fromHex(hex))).toBe(expected);
  });

  test.each([
    ["\u20ac stays literal", "\u20ac", '"€"'],
    ["non-BMP stays literal", "\ud83d\ude00", '"😀"'],
    ["ö and CJK stay literal", "ö 漢字", '"ö 漢字"'],
    ["\\u000f escaped lowercase", "\u000f", '"\\u000f"'],
    ["\\u001f escaped", "\u001f", '"\\u001f"'],
    ["NUL escaped", "\u0000", '"\\u0000"'],
    ["short escapes \\b \\t \\n \\f \\r", "\b\t\n\f\r", '"\\b\\t\\n\\f\\r"'],
    ["quote and backslash", 'a"b\\c', '"a\\"b\\\\c"'],
    ["solidus not escaped", "a/b", '"a/b"'],
    ["DEL (0x7f) not escaped", "\u007f", '"\u007f"'],
    ["U+2028 not escaped", "\u2028", '"\u2028"'],
  ])("string: %s", (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  test.each([
    ["undefined", undefined],
    ["NaN", NaN],
    ["Infinity", Infinity],
    ["-Infinity inside an array", [1, -Infinity]],
    ["a lone surrogate", { s: "\ud800" }],
  ])("%s is rejected", (_name, value) => {
    expect(() => canonicalJson(value)).toThrow();
    expect(() => hashContent(value)).toThrow();
  });

  test("undefined-valued object keys are dropped like JSON.stringify", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
  });
});

describe("sha256 hashes", () => {
  test("sha256Tagged of known strings (FIPS 180-2 test vectors)", () => {
    expect(sha256Tagged("")).toBe("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Tagged("abc")).toBe("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  test("hashContent = sha256 of the canonical string, computed independently", () => {
    const canonical = '{"a":[true,null,1.5],"b":{"c":"€\\u000f"}}';
    const expected = sha(canonical);
    expect(hashContent({ b: { c: "\u20ac\u000f" }, a: [true, null, 1.5] })).toBe(expected);
    expect(hashRequest({ b: { c: "\u20ac\u000f" }, a: [true, null, 1.5] })).toBe(expected);
    expect(expected).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  test("non-ASCII is hashed as UTF-8", () => {
    expect(sha256Tagged("€")).toBe("sha256:" + createHash("sha256").update(Buffer.from([0xe2, 0x82, 0xac])).digest("hex"));
    // The one-shot crypto.hash encodes like Hash.update(text, "utf8"), a lone surrogate included (U+FFFD).
    for (const t of ["\ud800x", "a\udfff", "x".repeat(70_000) + "€"]) expect(sha256Tagged(t)).toBe("sha256:" + createHash("sha256").update(t, "utf8").digest("hex"));
  });

  test("key order and whitespace of the source do not change the hash; values do", () => {
    const a = JSON.parse('{ "x": 1, "y": [1, 2] }');
    const b = JSON.parse('{"y":[1,2],"x":1.0}');
    expect(hashContent(a)).toBe(hashContent(b));
    expect(hashContent(a)).not.toBe(hashContent({ x: 1, y: [2, 1] }));
    expect(hashContent(null)).toBe(sha("null"));
    expect(hashContent("text")).toBe(sha('"text"'));
  });
});

describe("gold bundles: stored hashes equal recomputed ones", () => {
  test.each(["c1", "c2", "c3", "c4"])("gold-%s", (c) => {
    const b = gold(c);
    expect(b.graph.nodes.length).toBeGreaterThan(0);
    for (const n of b.graph.nodes) expect({ id: n.id, h: hashContent(n.content) }).toEqual({ id: n.id, h: n.contentHash });
    for (const r of b.records) expect({ seq: r.seq, h: hashRequest(r.request) }).toEqual({ seq: r.seq, h: r.requestHash });
    // and those are sha256 of the canonical text
    const n0 = b.graph.nodes[0];
    expect(n0.contentHash).toBe(sha(canonicalJson(n0.content)));
  });

  test("gold-c4 task node hash is a known value", () => {
    const task = gold("c4").graph.nodes[0];
    expect(task.id).toBe("task_0000");
    const canonical =
      '{"role":"user","text":"Get the product name and final price, ordered from low to high, of the most recent ' +
      'completed order. Return a list of objects with keys name and price only, without any additional details."}';
    expect(canonicalJson(task.content)).toBe(canonical);
    expect(sha(canonical)).toBe("sha256:483121eaff7ffd44c53d1d514b5f07358120cc2629e67427aa15f340c2ed7d5e");
    expect(hashContent(task.content)).toBe("sha256:483121eaff7ffd44c53d1d514b5f07358120cc2629e67427aa15f340c2ed7d5e");
  });
});

describe("canonicalJsonOfParsed: the same text as canonicalJson, faster", () => {
  test("the RFC 8785 §3.2.2 example gives the RFC's literal canonical text", () => {
    const input =
      '{\n  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n' +
      '  "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",\n' +
      '  "literals": [null, true, false]\n}';
    expect(canonicalJsonOfParsed(JSON.parse(input))).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  test("equals canonicalJson on the gold bundles and on random JSON values (unicode keys, numbers, nesting)", () => {
    for (const c of ["c1", "c2", "c3"]) {
      const b = gold(c);
      expect(canonicalJsonOfParsed(b)).toBe(canonicalJson(b));
    }
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const chars = ["a", "B", "é", "\u20ac", "\ud83d\ude00", "\u0000", "\n", '"', "\\", "\u2028", "z", "\ufb33", "1"];
    const str = () => Array.from({ length: Math.floor(rnd() * 6) }, () => chars[Math.floor(rnd() * chars.length)]).join("");
    const nums = [0, -0, 1e21, 1e-7, 5e-324, 0.1 + 0.2, -1.5e300, 2 ** 53 + 2, 123456789.125];
    const value = (d: number): unknown => {
      const r = rnd();
      if (d > 4 || r < 0.3) return [str(), nums[Math.floor(rnd() * nums.length)], true, false, null][Math.floor(rnd() * 5)];
      if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(d + 1));
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(rnd() * 5); i > 0; i--) o[str()] = value(d + 1);
      return o;
    };
    for (let i = 0; i < 500; i++) {
      const v = JSON.parse(JSON.stringify(value(0)));
      expect(canonicalJsonOfParsed(v)).toBe(canonicalJson(v));
    }
  });

  test("the library's errors and results for what JSON.parse never gives", () => {
    expect(() => canonicalJsonOfParsed({ a: "x\ud800" })).toThrow("Lone surrogate is not allowed");
    expect(() => canonicalJsonOfParsed({ ["\udc00"]: 1 })).toThrow("Lone surrogate is not allowed");
    expect(() => canonicalJsonOfParsed([1, NaN])).toThrow("NaN is not allowed");
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJsonOfParsed(cyclic)).toThrow("Circular reference detected");
    const withToJson = { b: 1, when: new Date(0), u: undefined };
    expect(canonicalJsonOfParsed(withToJson)).toBe('{"b":1,"when":"1970-01-01T00:00:00.000Z"}');
  });
});

describe("canonicalAndJsonOfParsed: both texts from one walk", () => {
  test("the RFC 8785 §3.2.2 example: the RFC's canonical text and JSON.stringify's text", () => {
    const v = JSON.parse('{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}');
    const t = canonicalAndJsonOfParsed(v);
    expect(t.canonical).toBe('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
    expect(t.json).toBe('{"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/","literals":[null,true,false]}');
  });

  test("equals canonicalJson and JSON.stringify on the gold bundles and on random values (unicode and integer-like keys, __proto__)", () => {
    for (const c of ["c1", "c2", "c3"]) {
      const b = gold(c);
      expect(canonicalAndJsonOfParsed(b)).toEqual({ canonical: canonicalJson(b), json: JSON.stringify(b) });
    }
    let seed = 11;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const chars = ["a", "B", "é", "\u20ac", "\ud83d\ude00", "\u0000", "\n", '"', "\\", "\u2028", "z", "\ufb33", "1", "9", "0"];
    const str = () => Array.from({ length: Math.floor(rnd() * 4) }, () => chars[Math.floor(rnd() * chars.length)]).join("");
    const nums = [0, -0, 1e21, 1e-7, 5e-324, 0.1 + 0.2, -1.5e300, 2 ** 53 + 2, 123456789.125];
    const value = (d: number): string => {
      const r = rnd();
      if (d > 4 || r < 0.3) return JSON.stringify([str(), nums[Math.floor(rnd() * nums.length)], true, false, null][Math.floor(rnd() * 5)]);
      if (r < 0.55) return "[" + Array.from({ length: Math.floor(rnd() * 4) }, () => value(d + 1)).join(",") + "]";
      // Object text with keys in random order (JSON.parse keeps that order; integer-like keys go first).
      const keys = new Set(Array.from({ length: Math.floor(rnd() * 6) }, () => (rnd() < 0.1 ? "__proto__" : str())));
      return "{" + [...keys].map((k) => JSON.stringify(k) + ":" + value(d + 1)).join(",") + "}";
    };
    let unsorted = 0;
    for (let i = 0; i < 800; i++) {
      const v = JSON.parse(value(0));
      const t = canonicalAndJsonOfParsed(v);
      expect(t.canonical).toBe(canonicalJson(v));
      expect(t.json).toBe(JSON.stringify(v));
      if (t.canonical !== t.json) unsorted++;
    }
    expect(unsorted).toBeGreaterThan(100);
  });

  test("the errors of canonicalJson; what JSON.parse never gives goes through the library", () => {
    expect(() => canonicalAndJsonOfParsed({ a: "x\ud800" })).toThrow("Lone surrogate is not allowed");
    expect(() => canonicalAndJsonOfParsed({ b: 1, ["\udc00"]: 1 })).toThrow("Lone surrogate is not allowed");
    expect(() => canonicalAndJsonOfParsed([1, NaN])).toThrow("NaN is not allowed");
    const withToJson = { when: new Date(0), b: 1 };
    expect(canonicalAndJsonOfParsed(withToJson)).toEqual({ canonical: '{"b":1,"when":"1970-01-01T00:00:00.000Z"}', json: '{"when":"1970-01-01T00:00:00.000Z","b":1}' });
  });
});

describe("canonicalJsonWith: an object around members already canonical", () => {
  test("equals canonicalJson of the whole (gold nodes and records with their content / request known)", () => {
    let n = 0;
    for (const c of ["c1", "c2", "c3"]) {
      const b = gold(c);
      for (const node of b.graph.nodes as unknown as Array<Record<string, unknown>>) {
        expect(canonicalJsonWith(node, { content: canonicalJson(node.content) })).toBe(canonicalJson(node));
        n++;
      }
      for (const r of b.records as unknown as Array<Record<string, unknown>>) {
        expect(canonicalJsonWith(r, { request: canonicalJson(r.request), response: undefined, absent: "[1]" })).toBe(canonicalJson(r));
        n++;
      }
    }
    expect(n).toBeGreaterThan(20);
    expect(canonicalJsonWith({ b: 1, a: undefined, c: [2] }, { c: "[2]" })).toBe('{"b":1,"c":[2]}');
    expect(() => canonicalJsonWith({ ["\ud800"]: 1 }, {})).toThrow("Lone surrogate is not allowed");
  });
});

import { describe, expect, test } from "vitest";
import { checkNewQuote, findQuoteRanges, normalizeQuoteText, quoteFromSegments, quoteOccursIn, validateForSubmit, type AnnotationFields } from "./index";

// Content with the traps: CRLF, a no-break space, a decomposed "é" (e + U+0301), keys that also
// appear as text, a number.
const content = {
  text: "Stephen King was born\r\n  in Portland,\u00a0Maine",
  note: "Cafe\u0301 de Flore",
  code: 200,
  nested: [{ title: "text" }],
};
const composed = "Caf\u00e9 de Flore";

describe("the quote rule (normalizeQuoteText + quoteOccursIn)", () => {
  test.each([
    ["CRLF in the value, LF in the quote", "born\n in Portland", true],
    ["CRLF in the value, a plain space in the quote", "born in Portland", true],
    ["CRLF in the quote as well", "born\r\n  in", true],
    ["NBSP in the value, a space in the quote", "Portland, Maine", true],
    ["NBSP in the quote, a space in the value", "Stephen\u00a0King", true],
    ["composed é in the quote, decomposed in the value (NFC)", composed, true],
    ["decomposed é in the quote too", "Cafe\u0301 de", true],
    ["a number as its text", "200", true],
    ["case must match", "stephen king", false],
    ["a quote spanning a key and its value", 'text: "Stephen King', false],
    ["a key name alone is not value text", "note", false],
    ["a quote spanning two values", "Maine Café", false],
    ["JSON punctuation", '"Stephen King was born', false],
    ["whitespace only", " \u00a0\r\n", false],
  ])("%s", (_n, quote, expected) => expect(quoteOccursIn(content, quote)).toBe(expected));

  test("normalization: NFC, CRLF→LF, NBSP→space, whitespace runs→one space, trimmed", () => {
    expect(normalizeQuoteText(" a\r\n\r\nb\u00a0\u202fc\te\u0301 ")).toBe("a b c \u00e9");
    expect(normalizeQuoteText("e\u0301")).toBe(normalizeQuoteText("\u00e9"));
    expect(normalizeQuoteText("x\ry")).toBe("x y");
  });
});

describe("validateForSubmit uses the same rule and refuses duplicates", () => {
  const graph = { nodeType: (id: string) => ({ n1: "tool_result", n2: "agent_action" })[id], nodeContent: (id: string) => ({ n1: content, n2: { text: "Stephen King" } })[id] };
  const base: AnnotationFields = { categories: ["C2"], primary: "C2", nodeId: "n1", nodeType: "tool_result", confidence: "high", rationale: "r", evidence: [] };
  test("a composed quote of a decomposed value is accepted (NFC)", () => {
    expect(validateForSubmit({ ...base, evidence: [{ nodeId: "n1", quote: composed }] }, graph)).toEqual([]);
  });
  test("the same quote twice on a node is refused, once per node is fine", () => {
    const errs = validateForSubmit(
      { ...base, evidence: [{ nodeId: "n1", quote: "Stephen King" }, { nodeId: "n2", quote: "Stephen King" }, { nodeId: "n1", quote: " Stephen\u00a0King " }] },
      graph,
    );
    expect(errs).toHaveLength(1);
    expect(errs[0]!.field).toBe("evidence[2].quote");
    expect(errs[0]!.message).toContain("repeats evidence 1");
  });
  test("a quote with key text names the node and the quote", () => {
    const errs = validateForSubmit({ ...base, evidence: [{ nodeId: "n1", quote: 'code: 200' }] }, graph);
    expect(errs.map((e) => e.field)).toEqual(["evidence[0].quote"]);
    expect(errs[0]!.message).toContain('not found in node "n1": "code: 200"');
  });
});

describe("checkNewQuote (at the moment of quoting)", () => {
  const existing = [{ nodeId: "n1", quote: "Stephen King" }];
  test("accepts value text, trimmed", () => expect(checkNewQuote({ nodeId: "n1", content, quote: "  was born ", existing })).toEqual({ ok: true, quote: "was born" }));
  test("refuses text not in the node, naming node and quote", () => {
    const r = checkNewQuote({ nodeId: "n1", content, quote: 'text: "Stephen', existing });
    expect(r).toEqual({ ok: false, message: expect.stringContaining('not found in node "n1": "text: \\"Stephen"') as string });
  });
  test("refuses a duplicate after normalization", () => {
    const r = checkNewQuote({ nodeId: "n1", content, quote: "Stephen\u00a0King", existing });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toContain("evidence 1 already quotes");
  });
  test("the same text on another node is not a duplicate", () => {
    expect(checkNewQuote({ nodeId: "n2", content: { t: "Stephen King" }, quote: "Stephen King", existing }).ok).toBe(true);
  });
  test("refuses an empty selection", () => expect(checkNewQuote({ nodeId: "n1", content, quote: " \n", existing }).ok).toBe(false));
});

describe("findQuoteRanges (highlighting)", () => {
  test("every occurrence, as raw offsets", () => {
    expect(findQuoteRanges("ab ab ab", ["ab"])).toEqual([[0, 2], [3, 5], [6, 8]]);
  });
  test("a normalized match maps back to the raw CRLF / NBSP run", () => {
    const raw = content.text;
    const [[s, e]] = findQuoteRanges(raw, ["born in Portland, Maine"]) as [[number, number]];
    expect(raw.slice(s, e)).toBe("born\r\n  in Portland,\u00a0Maine");
  });
  test("a composed quote marks the decomposed characters", () => {
    const [[s, e]] = findQuoteRanges(content.note, [composed]) as [[number, number]];
    expect(content.note.slice(s, e)).toBe(content.note);
  });
  test("overlapping quotes merge; no quote, no ranges", () => {
    expect(findQuoteRanges("Stephen King", ["Stephen K", "King"])).toEqual([[0, 12]]);
    expect(findQuoteRanges("Stephen King", ["Bangor"])).toEqual([]);
    expect(findQuoteRanges("Stephen King", [])).toEqual([]);
  });
});

describe("quoteFromSegments (selection → quote)", () => {
  const seg = (valueKey: string, text: string, start: number, end: number, offset = 0) => ({ valueKey, text, start, end, offset });
  test("a selection inside one string gives exactly that substring", () => {
    expect(quoteFromSegments([seg('["text"]', "Stephen King was born", 8, 12)])).toEqual({ ok: true, quote: "King", valueKey: '["text"]' });
  });
  test("a selection from a key into a value quotes only the value part (keys are no segment)", () => {
    // the DOM gives only the value portion: the key, its colon and the opening quote are not value text
    expect(quoteFromSegments([seg('["text"]', "Stephen King was born", 0, 12)])).toMatchObject({ ok: true, quote: "Stephen King" });
  });
  test("a value split into several text nodes by marks is one continuous quote", () => {
    // the same value in two portions (0..10 and 10..21): contiguous, so joined
    expect(quoteFromSegments([seg("v", "was born", 0, 8, 13), seg("v", "Stephen King ", 8, 13, 0)])).toMatchObject({ ok: true, quote: "King was born" });
  });
  test("two values are refused with a message naming them", () => {
    const r = quoteFromSegments([seg('["text"]', "Maine", 0, 5), seg('["code"]', "200", 0, 3)]);
    expect(r).toEqual({ ok: false, message: expect.stringContaining('covers 2 values (["text"], ["code"])') as string });
  });
  test("a gap inside one value (a cut long string) is refused", () => {
    expect(quoteFromSegments([seg("v", "abc", 1, 3, 0), seg("v", "xyz", 0, 2, 2500)]).ok).toBe(false);
  });
  test("nothing selected in any value is refused", () => {
    expect(quoteFromSegments([]).ok).toBe(false);
    expect(quoteFromSegments([seg("v", "abc", 2, 2)]).ok).toBe(false);
    expect(quoteFromSegments([seg("v", "a   b", 1, 4)]).ok).toBe(false);
  });
});

describe("rule and highlight agree", () => {
  test.each([
    ["a base letter of a decomposed accent is not a match (NFC)", "Cafe\u0301", "Cafe", false],
    ["tabs and NBSP runs", "a\t\u00a0 b c", "a b", true],
    ["CR alone", "one\rtwo", "one two", true],
    ["astral characters", "🙂 ok 🙂", "ok 🙂", true],
  ])("%s", (_n, value, quote, expected) => {
    expect(quoteOccursIn({ v: value }, quote)).toBe(expected);
    expect(findQuoteRanges(value, [quote]).length > 0).toBe(expected);
  });
});

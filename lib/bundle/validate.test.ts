/**
 * validateBundle against every rule of the bundle v1 spec §Validation, on the gold
 * bundles and on mutated copies of them; plus the malformed fixtures in ./fixtures.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import {
  canonicalJson,
  hashContent,
  hashRequest,
  JsonTextError,
  parseJsonText,
  validateBundle,
  type ReplayBundle,
  type ValidationIssue,
} from "./index";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");
const FIXTURES = path.join(import.meta.dirname, "fixtures");

type Gold = "c1" | "c2" | "c3" | "c4";
const goldText = (c: Gold) => readFileSync(path.join(SHARED, "fixtures/bundles", `gold-${c}.bundle.json`), "utf8");
/** A fresh, mutable deep copy of a gold bundle. */
const gold = (c: Gold): ReplayBundle => JSON.parse(goldText(c));

/** The identifying fields of an issue (message left out; asserted separately where it matters). */
const brief = (i: ValidationIssue) => ({ rule: i.rule, path: i.path, nodeId: i.nodeId, seq: i.seq });

function issuesOf(b: unknown): Array<ReturnType<typeof brief>> {
  const r = validateBundle(b);
  expect(r.ok).toBe(false);
  expect(r.bundle).toBeNull();
  return r.issues.map(brief);
}

describe("gold bundles", () => {
  // gold-c1..c4: nodes / edges / records / bundle id, counted from the files.
  test.each([
    ["c1", 12, 13, 5, "ag2/assistantbench_dev_9fce12b25f697d6/attempt_000"],
    ["c2", 16, 18, 7, "ag2/webarena_verified_hard_267/attempt_000"],
    ["c3", 12, 13, 5, "ag2/webarena_verified_hard_320/attempt_000"],
    ["c4", 4, 3, 1, "crewai/webarena_verified_hard_204/attempt_000"],
  ] as const)("gold-%s validates with %i nodes, %i edges, %i records", (c, nodes, edges, records, id) => {
    const raw = parseJsonText(goldText(c));
    const r = validateBundle(raw);
    expect(r.issues).toEqual([]);
    expect(r.ok).toBe(true);
    const b = r.bundle!;
    expect(b.format).toBe("symtrace.bundle/v1");
    expect(b.graph.nodes).toHaveLength(nodes);
    expect(b.graph.edges).toHaveLength(edges);
    expect(b.records).toHaveLength(records);
    expect(b.order).toHaveLength(nodes);
    expect(b.order[0]).toBe("task_0000");
    expect(b.order[nodes - 1]).toBe("final_result");
    expect(b.records.map((x) => x.seq)).toEqual([...Array(records).keys()]);
    expect(b.id).toBe(id);
    // the validated bundle is the input, unchanged
    expect(b).toEqual(raw);
  });

  test("gold-c1's records alternate llm and tool boundaries on llm_call / tool_call nodes", () => {
    const b = gold("c1");
    expect(b.records.map((r) => `${r.boundary}:${r.nodeId}`)).toEqual([
      "llm:llm_call_0000",
      "tool:tool_call_0000",
      "llm:llm_call_0001",
      "tool:tool_call_0001",
      "llm:llm_call_0002",
    ]);
  });
});

/*
 * gold-c1 layout, used by the mutations below:
 *   nodes/order 0 task_0000, 1 llm_call_0000, 2 agent_action_0000, 3 tool_call_0000,
 *   4 tool_result_0000, 5 llm_call_0001, 6 agent_action_0001, 7 tool_call_0001,
 *   8 tool_result_0001, 9 llm_call_0002, 10 agent_action_0002, 11 final_result
 *   edges[3] tool_call_0000 -> tool_result_0000, edges[2] agent_action_0000 -> tool_call_0000
 *   records: 0 llm@llm_call_0000, 1 tool@tool_call_0000, 2 llm@llm_call_0001,
 *            3 tool@tool_call_0001, 4 llm@llm_call_0002
 */
type Mutation = [name: string, mutate: (b: ReplayBundle) => void, expected: Array<Partial<ReturnType<typeof brief>>>];

const ZERO_HASH = "sha256:" + "0".repeat(64);

const mutations: Mutation[] = [
  // Rule 1
  [
    "wrong format",
    (b) => {
      b.format = "symtrace.bundle/v2" as never;
    },
    [{ rule: "format", path: "$.format" }],
  ],
  [
    "missing format",
    (b) => {
      delete (b as Partial<ReplayBundle>).format;
    },
    [{ rule: "format", path: "$.format" }],
  ],
  [
    "duplicate node id (final_result copied to the end)",
    (b) => {
      b.graph.nodes.push({ ...b.graph.nodes[11] });
    },
    [{ rule: "unique-node-id", path: "$.graph.nodes[12].id", nodeId: "final_result" }],
  ],
  [
    "unknown edge endpoint (from)",
    (b) => {
      b.graph.edges[2].from = "ghost_0000";
    },
    [{ rule: "edge-endpoint", path: "$.graph.edges[2].from", nodeId: "ghost_0000" }],
  ],
  [
    "unknown edge endpoint (to)",
    (b) => {
      b.graph.edges[3].to = "tool_result_9999";
    },
    [{ rule: "edge-endpoint", path: "$.graph.edges[3].to", nodeId: "tool_result_9999" }],
  ],
  [
    "unknown edge endpoints (both ends of one edge)",
    (b) => {
      b.graph.edges[0].from = "a";
      b.graph.edges[0].to = "b";
    },
    [
      { rule: "edge-endpoint", path: "$.graph.edges[0].from", nodeId: "a" },
      { rule: "edge-endpoint", path: "$.graph.edges[0].to", nodeId: "b" },
    ],
  ],
  // Rule 2 (a back edge is also against the order: rule 3)
  [
    "cycle: back edge tool_result_0000 -> llm_call_0000",
    (b) => {
      b.graph.edges.push({ from: "tool_result_0000", to: "llm_call_0000", kind: "control" });
    },
    [
      { rule: "acyclic", path: "$.graph.edges[13]", nodeId: "tool_result_0000" },
      { rule: "order-linear-extension", path: "$.graph.edges[13]", nodeId: "llm_call_0000" },
    ],
  ],
  [
    "self loop",
    (b) => {
      b.graph.edges.push({ from: "final_result", to: "final_result", kind: "control" });
    },
    [
      { rule: "acyclic", path: "$.graph.edges[13]", nodeId: "final_result" },
      { rule: "order-linear-extension", path: "$.graph.edges[13]", nodeId: "final_result" },
    ],
  ],
  // Rule 3
  [
    "order not a linear extension: tool_call_0000 and tool_result_0000 swapped",
    (b) => {
      [b.order[3], b.order[4]] = [b.order[4], b.order[3]];
    },
    [{ rule: "order-linear-extension", path: "$.graph.edges[3]", nodeId: "tool_result_0000" }],
  ],
  [
    "order missing a node",
    (b) => {
      b.order.pop();
    },
    [{ rule: "order-complete", path: "$.graph.nodes[11].id", nodeId: "final_result" }],
  ],
  [
    "duplicate id in order",
    (b) => {
      b.order.push("task_0000");
    },
    [{ rule: "order-complete", path: "$.order[12]", nodeId: "task_0000" }],
  ],
  [
    "unknown id in order",
    (b) => {
      b.order.push("ghost_0000");
    },
    [{ rule: "order-complete", path: "$.order[12]", nodeId: "ghost_0000" }],
  ],
  [
    "unknown id replacing a node in order (unknown + missing)",
    (b) => {
      b.order[11] = "ghost_0000";
    },
    [
      { rule: "order-complete", path: "$.order[11]", nodeId: "ghost_0000" },
      { rule: "order-complete", path: "$.graph.nodes[11].id", nodeId: "final_result" },
    ],
  ],
  // Rule 4
  [
    "record seq gap: records[2] deleted",
    (b) => {
      b.records.splice(2, 1);
    },
    [
      { rule: "record-seq", path: "$.records[2].seq", seq: 2 },
      { rule: "record-seq", path: "$.records[3].seq", seq: 3 },
    ],
  ],
  [
    "record on unknown node",
    (b) => {
      b.records[1].nodeId = "tool_call_9999";
    },
    [{ rule: "record-node", path: "$.records[1].nodeId", nodeId: "tool_call_9999", seq: 1 }],
  ],
  [
    "record order not increasing: records[3] on tool_result_0000 (before llm_call_0001)",
    (b) => {
      b.records[3].nodeId = "tool_result_0000";
    },
    [{ rule: "record-order", path: "$.records[3].nodeId", nodeId: "tool_result_0000", seq: 3 }],
  ],
  [
    "two records on the same node",
    (b) => {
      b.records[4].nodeId = "tool_call_0001";
      b.records[4].boundary = "tool";
    },
    [{ rule: "record-order", path: "$.records[4].nodeId", nodeId: "tool_call_0001", seq: 4 }],
  ],
  // Rule 5
  [
    "wrong contentHash (content edited, hash stale)",
    (b) => {
      (b.graph.nodes[4].content as Record<string, unknown>).tampered = true;
    },
    [{ rule: "content-hash", path: "$.graph.nodes[4].contentHash", nodeId: "tool_result_0000" }],
  ],
  [
    "wrong contentHash (hash replaced)",
    (b) => {
      b.graph.nodes[0].contentHash = ZERO_HASH;
    },
    [{ rule: "content-hash", path: "$.graph.nodes[0].contentHash", nodeId: "task_0000" }],
  ],
  [
    "wrong requestHash (request edited, hash stale)",
    (b) => {
      (b.records[2].request as Record<string, unknown>).temperature = 0.7;
    },
    [{ rule: "request-hash", path: "$.records[2].requestHash", nodeId: "llm_call_0001", seq: 2 }],
  ],
  [
    "wrong requestHash (hash copied from another record)",
    (b) => {
      b.records[0].requestHash = b.records[1].requestHash;
    },
    [{ rule: "request-hash", path: "$.records[0].requestHash", nodeId: "llm_call_0000", seq: 0 }],
  ],
  // Rule 6
  [
    "llm record on a tool_result node",
    (b) => {
      b.records[1].nodeId = "tool_result_0000";
      b.records[1].boundary = "llm";
    },
    [{ rule: "record-boundary-type", path: "$.records[1].boundary", nodeId: "tool_result_0000", seq: 1 }],
  ],
  [
    "tool record on an llm_call node",
    (b) => {
      b.records[2].boundary = "tool";
    },
    [{ rule: "record-boundary-type", path: "$.records[2].boundary", nodeId: "llm_call_0001", seq: 2 }],
  ],
  [
    "llm record on a message node",
    (b) => {
      b.records[0].nodeId = "task_0000";
    },
    [{ rule: "record-boundary-type", path: "$.records[0].boundary", nodeId: "task_0000", seq: 0 }],
  ],
  // Schema
  [
    "bad node type",
    (b) => {
      b.graph.nodes[4].type = "robot" as never;
    },
    [{ rule: "schema", path: "$.graph.nodes[4].type" }],
  ],
  [
    "bad edge kind",
    (b) => {
      b.graph.edges[0].kind = "causal" as never;
    },
    [{ rule: "schema", path: "$.graph.edges[0].kind" }],
  ],
  [
    "contentHash not in sha256 form (also a mismatch)",
    (b) => {
      b.graph.nodes[0].contentHash = "md5:d41d8cd98f00b204e9800998ecf8427e";
    },
    [
      { rule: "schema", path: "$.graph.nodes[0].contentHash" },
      { rule: "content-hash", path: "$.graph.nodes[0].contentHash", nodeId: "task_0000" },
    ],
  ],
  [
    "requestHash with uppercase hex (also a mismatch)",
    (b) => {
      b.records[0].requestHash = b.records[0].requestHash.toUpperCase().replace("SHA256:", "sha256:");
    },
    [
      { rule: "schema", path: "$.records[0].requestHash" },
      { rule: "request-hash", path: "$.records[0].requestHash", nodeId: "llm_call_0000", seq: 0 },
    ],
  ],
  [
    "bad boundary",
    (b) => {
      b.records[0].boundary = "http" as never;
    },
    [{ rule: "schema", path: "$.records[0].boundary" }],
  ],
  [
    "missing task.prompt",
    (b) => {
      delete (b.task as Partial<ReplayBundle["task"]>).prompt;
    },
    [{ rule: "schema", path: "$.task.prompt" }],
  ],
  [
    "node without content",
    (b) => {
      delete (b.graph.nodes[2] as Partial<ReplayBundle["graph"]["nodes"][number]>).content;
    },
    [{ rule: "schema", path: "$.graph.nodes[2].content" }],
  ],
];

describe("every validation rule, on a mutated gold-c1", () => {
  test.each(mutations)("%s", (_name, mutate, expected) => {
    const b = gold("c1");
    mutate(b);
    expect(issuesOf(b)).toEqual(expected);
  });

  test("the cycle message names the cycle's nodes in edge order", () => {
    const b = gold("c1");
    b.graph.edges.push({ from: "tool_result_0000", to: "llm_call_0000", kind: "control" });
    const r = validateBundle(b);
    const cyc = r.issues.find((i) => i.rule === "acyclic");
    expect(cyc?.message).toBe(
      "graph has a cycle: llm_call_0000 -> agent_action_0000 -> tool_call_0000 -> tool_result_0000 -> llm_call_0000",
    );
  });

  test("a hash mismatch message gives the stored and the recomputed hash", () => {
    const b = gold("c1");
    const good = b.graph.nodes[0].contentHash;
    b.graph.nodes[0].contentHash = ZERO_HASH;
    const [issue] = validateBundle(b).issues;
    expect(issue.message).toContain(ZERO_HASH);
    expect(issue.message).toContain(good);
  });

  test("non-object inputs are rejected without a crash", () => {
    for (const x of [null, 42, "bundle", [], undefined]) {
      const r = validateBundle(x);
      expect(r.ok).toBe(false);
      expect(r.issues.length).toBeGreaterThan(0);
      expect(r.issues.every((i) => i.rule === "schema" && i.path === "$")).toBe(true);
    }
  });

  test("an empty object gets a format issue and schema issues, no crash", () => {
    const rules = new Set(validateBundle({}).issues.map((i) => i.rule));
    expect([...rules].sort()).toEqual(["format", "schema"]);
  });
});

describe("all violations are reported, not only the first", () => {
  test("four faults in four rules give at least four issues covering the four rules", () => {
    const b = gold("c2");
    b.graph.edges[5].to = "ghost_0000"; // edge-endpoint
    b.order.splice(b.order.indexOf("final_result"), 1); // order-complete
    b.records.splice(1, 1); // record-seq (every later record)
    (b.graph.nodes[2].content as Record<string, unknown>).edited = 1; // content-hash
    const issues = validateBundle(b).issues;
    expect(issues.length).toBeGreaterThanOrEqual(4);
    expect(new Set(issues.map((i) => i.rule))).toEqual(
      new Set(["edge-endpoint", "order-complete", "record-seq", "content-hash"]),
    );
    // record-seq is reported for each of the 5 records after the deleted one
    expect(issues.filter((i) => i.rule === "record-seq").map((i) => i.path)).toEqual(
      [1, 2, 3, 4, 5].map((k) => `$.records[${k}].seq`),
    );
  });

  test("schema and semantic faults are reported together", () => {
    const b = gold("c1");
    b.format = "v0" as never;
    b.graph.nodes[3].type = "robot" as never;
    b.graph.edges.push({ from: "final_result", to: "task_0000", kind: "control" });
    b.records[2].boundary = "tool";
    const rules = validateBundle(b).issues.map((i) => i.rule);
    for (const r of ["format", "schema", "acyclic", "order-linear-extension", "record-boundary-type"]) {
      expect(rules).toContain(r);
    }
  });
});

describe("round trip: unknown keys survive validation", () => {
  function withUnknownKeys(): ReplayBundle {
    const b = gold("c1") as ReplayBundle & Record<string, unknown>;
    b.source = { dataset: "who-and-when", file: "x.json", line: 3 };
    b.referenceLabels = [{ nodeId: "agent_action_0001", symptom: "S3" }];
    (b.task as Record<string, unknown>).difficulty = { level: 3, tags: ["hard"] };
    (b.config as Record<string, unknown>).seed = 1234;
    (b.config as Record<string, unknown>).nested = { deep: [1, { x: null }] };
    (b.graph as Record<string, unknown>).layout = "dagre";
    (b.graph.nodes[4] as Record<string, unknown>).x_ui = { collapsed: true };
    (b.graph.edges[3] as Record<string, unknown>).weight = 0.5;
    (b.records[1] as Record<string, unknown>).x_trace = { span: "abc" };
    (b.outcome as Record<string, unknown>).score = 0.25;
    return b;
  }

  test("validateBundle(x).bundle deep-equals x, canonically identical", () => {
    const x = withUnknownKeys();
    const r = validateBundle(x);
    expect(r.issues).toEqual([]);
    expect(r.bundle).toStrictEqual(x);
    expect(canonicalJson(r.bundle)).toBe(canonicalJson(x));
    // and through text: serialize, parse, validate again
    const again = validateBundle(JSON.parse(JSON.stringify(r.bundle)));
    expect(again.bundle).toStrictEqual(x);
  });

  test("unknown keys outside content/request leave the hashes unchanged", () => {
    const plain = gold("c1");
    const x = validateBundle(withUnknownKeys()).bundle!;
    expect(x.graph.nodes.map((n) => n.contentHash)).toEqual(plain.graph.nodes.map((n) => n.contentHash));
    expect(x.records.map((r) => r.requestHash)).toEqual(plain.records.map((r) => r.requestHash));
    expect(x.graph.nodes.map((n) => hashContent(n.content))).toEqual(plain.graph.nodes.map((n) => n.contentHash));
    expect(x.records.map((r) => hashRequest(r.request))).toEqual(plain.records.map((r) => r.requestHash));
  });

  test("an unknown key inside content does change the hash (and is caught)", () => {
    const b = gold("c1");
    (b.graph.nodes[4].content as Record<string, unknown>).x_ui = { collapsed: true };
    expect(issuesOf(b)).toEqual([
      { rule: "content-hash", path: "$.graph.nodes[4].contentHash", nodeId: "tool_result_0000" },
    ]);
  });
});

describe("malformed fixtures (lib/bundle/fixtures, derived from gold-c4)", () => {
  const load = (f: string) => parseJsonText(readFileSync(path.join(FIXTURES, f), "utf8"));

  test.each([
    ["cycle.bundle.json", [
      { rule: "acyclic", path: "$.graph.edges[3]", nodeId: "final_result" },
      { rule: "order-linear-extension", path: "$.graph.edges[3]", nodeId: "llm_call_0000" },
    ]],
    ["not-linear-extension.bundle.json", [
      { rule: "order-linear-extension", path: "$.graph.edges[1]", nodeId: "agent_action_0000" },
    ]],
    ["wrong-hash.bundle.json", [
      { rule: "content-hash", path: "$.graph.nodes[2].contentHash", nodeId: "agent_action_0000" },
      { rule: "request-hash", path: "$.records[0].requestHash", nodeId: "llm_call_0000", seq: 0 },
    ]],
    ["duplicate-id.bundle.json", [
      { rule: "unique-node-id", path: "$.graph.nodes[4].id", nodeId: "llm_call_0000" },
    ]],
    ["unknown-endpoint.bundle.json", [
      { rule: "edge-endpoint", path: "$.graph.edges[1].to", nodeId: "agent_action_0001" },
    ]],
    ["record-seq-gap.bundle.json", [{ rule: "record-seq", path: "$.records[1].seq", seq: 1 }]],
  ] as const)("%s is rejected with exactly the intended issues", (file, expected) => {
    expect(issuesOf(load(file))).toEqual(expected);
  });

  test("truncated.bundle.json fails to parse with a line number", () => {
    const text = readFileSync(path.join(FIXTURES, "truncated.bundle.json"), "utf8");
    expect(() => parseJsonText(text)).toThrow(JsonTextError);
    try {
      parseJsonText(text);
    } catch (e) {
      const err = e as JsonTextError;
      expect(err.line).toBe(text.split("\n").length);
      expect(err.line).toBeGreaterThan(10);
      expect(err.message).toMatch(/truncated/);
    }
  });

  test("each fixture differs from gold-c4 only by its fault (same id, task, records' responses)", () => {
    const c4 = gold("c4");
    for (const f of ["cycle", "not-linear-extension", "wrong-hash", "duplicate-id", "unknown-endpoint", "record-seq-gap"]) {
      const b = load(`${f}.bundle.json`) as ReplayBundle;
      expect(b.id).toBe(c4.id);
      expect(b.task).toEqual(c4.task);
      expect(b.records[0].response).toEqual(c4.records[0].response);
    }
  });
});

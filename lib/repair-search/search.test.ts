/**
 * MARS core on a fake environment (no LLM, no MAS): UCT selection, expansion limits (K), depth limit
 * (D_max), backpropagation, stop rules, selector validation, error children and resumability.
 * The fake world's states are strings of action letters; its judge scores come from a table.
 */
import { describe, expect, it } from "vitest";
import {
  backpropagate,
  createSearch,
  isClosed,
  iterate,
  pathTo,
  resolveSettings,
  runRepairSearch,
  searchFailure,
  selectExpandable,
  uct,
  RepairSearchError,
  type BuiltState,
  type JudgeVerdict,
  type RepairAction,
  type SearchEnvironment,
  type SearchState,
  type SelectorInput,
} from "./index";

const ROOT: BuiltState = { stateRef: "", checkpoints: ["c1", "c2"], finished: true, liveSteps: 0, usage: { calls: 0, tokens: 0 } };

interface FakeOptions {
  /** Actions the selector returns, in call order (cycled); a string "throw" makes it throw. */
  actions: Array<RepairAction | "throw">;
  /** Score of a state ref (default 0.2). */
  score?: (ref: string) => number;
  /** apply throws for these refs (the child's ref). */
  failApply?: Set<string>;
  finished?: (ref: string) => boolean;
  /** Instead of `actions`: a guided repair whose guidance names the sibling index (never a repeat). */
  perSibling?: boolean;
}

function fakeEnv(o: FakeOptions): SearchEnvironment & { selectorInputs: SelectorInput[]; applied: string[] } {
  let i = 0;
  const selectorInputs: SelectorInput[] = [];
  const applied: string[] = [];
  const letter = (a: RepairAction) => (a.kind === "rollback" ? "R" : a.kind === "guided_repair" ? "G" : "C");
  return {
    selectorInputs,
    applied,
    async selectAction(input) {
      selectorInputs.push(input);
      if (o.perSibling) return { action: { kind: "guided_repair", guidance: `variant ${input.node.children.length}` }, usage: { calls: 1, tokens: 10 } };
      const a = o.actions[i++ % o.actions.length];
      if (a === "throw") throw new Error("no tool call in the reply");
      return { action: a, usage: { calls: 1, tokens: 10 } };
    },
    async apply(parent, action) {
      const ref = `${parent.state?.stateRef ?? ""}${letter(action)}`;
      applied.push(ref);
      if (o.failApply?.has(ref)) throw new Error(`MAS diverged at ${ref}`);
      const live = action.kind === "rollback" ? 0 : 4;
      return { stateRef: ref, checkpoints: ["c1", "c2"], finished: o.finished?.(ref) ?? false, liveSteps: live, usage: { calls: live, tokens: live * 100 } };
    },
    async judge(state) {
      const score = (o.score ?? (() => 0.2))(state.stateRef);
      const verdict: JudgeVerdict = { score, failureMode: score >= 1 ? "None" : "FM 3.2", feedback: `feedback for ${state.stateRef}`, foundSolution: score >= 1 };
      return { verdict, usage: { calls: 1, tokens: 50 } };
    },
  };
}

describe("uct (seeds/002 eq. 1)", () => {
  it.each([
    // Q, N(c), N(p), C, expected: Q/N + C·sqrt(ln N(p) / N(c)) computed by hand
    [1.5, 2, 6, 1.41, 0.75 + 1.41 * Math.sqrt(Math.log(6) / 2)],
    [0.2, 1, 1, 1.41, 0.2], // ln 1 = 0: no exploration bonus
    [3, 3, 10, 0, 1], // C = 0: pure exploitation
  ])("Q=%d N=%d N(p)=%d C=%d", (q, n, np, c, expected) => {
    expect(uct(q, n, np, c)).toBeCloseTo(expected, 12);
  });
  it("gives +∞ for an unvisited child", () => {
    expect(uct(0, 0, 5, 1.41)).toBe(Number.POSITIVE_INFINITY);
  });
  it("prices exploration: 2.0846 for Q=1.5, N=2, N(p)=6", () => {
    expect(uct(1.5, 2, 6, 1.41)).toBeCloseTo(2.084578, 5);
  });
});

describe("settings", () => {
  it("defaults are the paper's: C 1.41, K 3, L 4, D_max 8, N_iter 75", () => {
    const s = resolveSettings();
    expect([s.c, s.k, s.l, s.maxDepth, s.iterations]).toEqual([1.41, 3, 4, 8, 75]);
    expect(s.budget).toEqual({ maxCalls: null, maxTokens: null });
  });
  it("rejects a bad value naming the field", () => {
    expect(() => resolveSettings({ k: 0 })).toThrow(/settings\.k must be a positive integer/);
    expect(() => resolveSettings({ budget: { maxCalls: -1, maxTokens: null } })).toThrow(/settings\.budget\.maxCalls/);
    expect(() => resolveSettings({ c: Number.NaN })).toThrow(RepairSearchError);
  });
});

describe("selection and expansion limits", () => {
  it("expands the root until it has K children, then descends to the child with the highest UCT", async () => {
    // Scores by state: R → 0.1, C → 0.6, G → 0.3 (root is finished: non-rollback choices are coerced,
    // so the root's children are built from rollbacks: make the root unfinished here).
    const env = fakeEnv({
      actions: [{ kind: "rollback", checkpoint: "c1", guidance: "fix A" }, { kind: "continuation" }, { kind: "guided_repair", guidance: "fix B" }, { kind: "continuation" }],
      score: (ref) => ({ R: 0.1, C: 0.6, G: 0.3, CC: 0.5 })[ref] ?? 0,
    });
    const s = createSearch({ ...ROOT, finished: false }, { k: 3 });
    for (let i = 0; i < 3; i++) await iterate(s, env);
    expect(s.nodes.n0.children).toEqual(["n1", "n2", "n3"]);
    expect(s.nodes.n0.visits).toBe(3);
    expect(s.nodes.n0.q).toBeCloseTo(1.0, 12);
    // Root fully expanded (K = 3): UCT of each child with N(p) = 3, N(c) = 1: r + 1.41·sqrt(ln 3) → n2 (0.6) wins.
    expect(selectExpandable(s)?.id).toBe("n2");
    await iterate(s, env);
    expect(s.nodes.n2.children).toEqual(["n4"]);
    expect(s.nodes.n4.state?.stateRef).toBe("CC");
    expect(s.nodes.n4.depth).toBe(2);
    // Backpropagation along n4 → n2 → n0: N and Q exact.
    expect([s.nodes.n4.visits, s.nodes.n4.q]).toEqual([1, 0.5]);
    expect(s.nodes.n2.visits).toBe(2);
    expect(s.nodes.n2.q).toBeCloseTo(1.1, 12);
    expect(s.nodes.n0.visits).toBe(4);
    expect(s.nodes.n0.q).toBeCloseTo(1.5, 12);
    expect(s.bestId).toBe("n2");
    expect(s.maxR).toBe(0.6);
    expect(s.usage).toEqual({ selector: { calls: 4, tokens: 40 }, judge: { calls: 4, tokens: 200 }, mas: { calls: 12, tokens: 1200 } });
  });

  it("breaks UCT ties toward the earliest created child", () => {
    const s = createSearch(ROOT, { k: 2 });
    for (const id of ["n1", "n2"]) {
      s.nodes[id] = { ...s.nodes.n0, id, parentId: "n0", depth: 1, children: [], visits: 1, q: 0.4, state: ROOT };
      s.order.push(id);
      s.nodes.n0.children.push(id);
    }
    s.nodes.n0.visits = 2;
    expect(selectExpandable(s)?.id).toBe("n1");
  });

  it("never gives a node more than K children", async () => {
    const env = fakeEnv({ actions: [], perSibling: true, score: () => 0.3 });
    const s = createSearch({ ...ROOT, finished: false }, { k: 2, maxDepth: 3, iterations: 40 });
    await runRepairSearch(s, env);
    for (const id of s.order) expect(s.nodes[id].children.length).toBeLessThanOrEqual(2);
    // Full binary tree of depth 3 below the root: 2 + 4 + 8 = 14 expansions, then exhausted.
    expect(s.order.length).toBe(15);
    expect(s.stopped).toBe("exhausted");
    expect(s.iteration).toBe(14);
  });
});

describe("depth limit", () => {
  it("never expands a node at D_max and stops as exhausted when every path ends there", async () => {
    const env = fakeEnv({ actions: [{ kind: "continuation" }], score: () => 0.2 });
    const s = createSearch({ ...ROOT, finished: false }, { k: 1, maxDepth: 2, iterations: 75 });
    await runRepairSearch(s, env);
    expect(s.order).toEqual(["n0", "n1", "n2"]);
    expect(s.nodes.n2.depth).toBe(2);
    expect(s.nodes.n2.children).toEqual([]);
    expect(isClosed(s, "n2")).toBe(true);
    expect(isClosed(s, "n0")).toBe(true);
    expect(s.stopped).toBe("exhausted");
    expect(selectExpandable(s)).toBeNull();
  });
});

describe("stop rules", () => {
  it("stops at r = 1 and returns that node as best", async () => {
    const env = fakeEnv({ actions: [{ kind: "continuation" }], score: (ref) => (ref === "CC" ? 1 : 0.4) });
    const s = createSearch({ ...ROOT, finished: false }, { k: 1 });
    await runRepairSearch(s, env);
    expect(s.stopped).toBe("solved");
    expect(s.iteration).toBe(2);
    expect(s.nodes[s.bestId].state?.stateRef).toBe("CC");
    expect(pathTo(s, s.bestId)).toEqual(["n0", "n1", "n2"]);
  });

  it("stops after N_iter expansions", async () => {
    const env = fakeEnv({ actions: [], perSibling: true, score: () => 0.5 });
    const s = createSearch({ ...ROOT, finished: false }, { iterations: 5 });
    await runRepairSearch(s, env);
    expect(s.stopped).toBe("iterations");
    expect(s.iteration).toBe(5);
    expect(s.order.length).toBe(6);
  });

  it("stops at the call budget before starting another expansion", async () => {
    // each iteration: 1 selector + 4 MAS + 1 judge = 6 calls
    const env = fakeEnv({ actions: [{ kind: "continuation" }], score: () => 0.5 });
    const s = createSearch({ ...ROOT, finished: false }, { budget: { maxCalls: 13, maxTokens: null } });
    await runRepairSearch(s, env);
    expect(s.stopped).toBe("budget");
    expect(s.iteration).toBe(3); // 12 calls < 13 after 2 → a third runs (18 ≥ 13) → stop
  });

  it("stops when cancelled", async () => {
    const ac = new AbortController();
    const env = fakeEnv({ actions: [{ kind: "continuation" }] });
    const s = createSearch({ ...ROOT, finished: false });
    await runRepairSearch(s, env, { signal: ac.signal, onIteration: (st) => { if (st.iteration === 2) ac.abort(); } });
    expect(s.stopped).toBe("cancelled");
    expect(s.iteration).toBe(2);
  });
});

describe("actions and stored guidance", () => {
  it("rollback stores guidance, continuation inherits it, guided_repair consumes it", async () => {
    const env = fakeEnv({
      actions: [{ kind: "rollback", checkpoint: "c2", guidance: "check the tool output" }, { kind: "continuation" }, { kind: "guided_repair", guidance: "" }],
      score: () => 0.3,
    });
    const s = createSearch(ROOT, { k: 1 });
    await iterate(s, env); // n1 = rollback
    await iterate(s, env); // n2 = continuation from n1
    await iterate(s, env); // n3 = guided repair from n2, empty guidance → stored guidance
    expect(s.nodes.n1.storedGuidance).toBe("check the tool output");
    expect(s.nodes.n2.storedGuidance).toBe("check the tool output");
    expect(s.nodes.n3.action).toEqual({ kind: "guided_repair", guidance: "check the tool output" });
    expect(s.nodes.n3.storedGuidance).toBeNull();
    expect(env.selectorInputs[2].storedGuidance).toBe("check the tool output");
    expect(env.selectorInputs[1].verdict?.feedback).toBe("feedback for R");
  });

  it("coerces an unusable selector reply and records why", async () => {
    const env = fakeEnv({ actions: [{ kind: "rollback", checkpoint: "c9", guidance: "x" }, "throw", { kind: "continuation" }], score: () => 0.3 });
    const s = createSearch(ROOT, { k: 3 }); // root finished: only rollback is possible
    await iterate(s, env);
    await iterate(s, env);
    await iterate(s, env);
    // The 1st and 2nd replies both become the same fallback rollback: built once (issue 22 item 1),
    // the root takes no more children, and the 3rd (continuation) expands n1.
    const kinds = s.nodes.n0.children.map((id) => s.nodes[id].action);
    expect(kinds).toEqual([{ kind: "rollback", checkpoint: "c2", guidance: "Avoid the previous error and verify each step against tool output." }]);
    expect(s.nodes.n1.children.map((id) => s.nodes[id].action)).toEqual([{ kind: "continuation" }]);
    expect(s.coercions).toEqual([
      expect.stringMatching(/unknown checkpoint "c9"/),
      expect.stringMatching(/unusable \(no tool call in the reply\)/),
      "iteration 2, n0: rollback repeats child n1; n0 takes no more children",
    ]);
  });

  it("a failed build scores 0, is never expanded, and the search goes on", async () => {
    const env = fakeEnv({ actions: [{ kind: "continuation" }], failApply: new Set(["C"]), score: () => 0.4 });
    const s = createSearch({ ...ROOT, finished: false }, { k: 2, maxDepth: 2, iterations: 10 });
    await runRepairSearch(s, env);
    expect(s.nodes.n1.error).toBe("continuation failed: MAS diverged at C");
    expect(s.nodes.n1.q).toBe(0);
    expect(s.nodes.n1.children).toEqual([]);
    expect(s.nodes.n2.error).toBe("continuation failed: MAS diverged at C");
    // both root children failed → root closed → exhausted after 2 iterations (a continuation is a
    // fresh rollout: repeating one is not an identical sibling)
    expect(s.stopped).toBe("exhausted");
  });
});

describe("resumability", () => {
  it("a search stored as JSON after each iteration and resumed ends exactly like an uninterrupted one", async () => {
    const actions: RepairAction[] = [
      { kind: "rollback", checkpoint: "c1", guidance: "g1" },
      { kind: "guided_repair", guidance: "g1" },
      { kind: "continuation" },
      { kind: "rollback", checkpoint: "c2", guidance: "g2" },
    ];
    const score = (ref: string) => Math.min(0.95, (ref.length * 7 + ref.charCodeAt(ref.length - 1)) % 10 / 10);
    const full = await runRepairSearch(createSearch({ ...ROOT, finished: false }, { iterations: 20 }), fakeEnv({ actions, score }));

    const env2 = fakeEnv({ actions, score });
    let stored = JSON.stringify(createSearch({ ...ROOT, finished: false }, { iterations: 20 }));
    for (;;) {
      const st = JSON.parse(stored) as SearchState;
      await iterate(st, env2);
      stored = JSON.stringify(st);
      if (st.stopped) break;
    }
    const resumed = JSON.parse(stored) as SearchState;
    expect(resumed.order).toEqual(full.order);
    expect(resumed.bestId).toBe(full.bestId);
    expect(resumed.nodes).toEqual(full.nodes);
    expect(resumed.stopped).toBe("iterations");
  });

  it("backpropagate adds r to every node on the path and nothing else", () => {
    const s = createSearch(ROOT);
    s.nodes.n1 = { ...s.nodes.n0, id: "n1", parentId: "n0", depth: 1, children: [] };
    s.nodes.n2 = { ...s.nodes.n0, id: "n2", parentId: "n0", depth: 1, children: [] };
    s.nodes.n0.children = ["n1", "n2"];
    backpropagate(s, "n1", 0.7);
    expect([s.nodes.n1.visits, s.nodes.n1.q, s.nodes.n0.visits, s.nodes.n0.q, s.nodes.n2.visits]).toEqual([1, 0.7, 1, 0.7, 0]);
  });
});

describe("identical sibling rollbacks (issue 22 item 1)", () => {
  it("a repeated rollback is not expanded again: the node is saturated and the search descends", async () => {
    // The selector always answers the same rollback (a deterministic selector): before, the root got
    // three identical children (n1, n2, n3); now n1 only, then the search goes below n1.
    const env = fakeEnv({ actions: [{ kind: "rollback", checkpoint: "c1", guidance: "check the price" }] });
    const s = createSearch(ROOT, { k: 3, iterations: 4 });
    await runRepairSearch(s, env);
    const root = s.nodes.n0;
    expect(root.children).toEqual(["n1"]);
    expect(root.saturated).toBe(true);
    // Iteration 1: n1 = rollback. The same rollback for the root again: no node, no iteration used,
    // root saturated; iteration 2 goes below n1 (its first rollback → n2); and so on down.
    expect(s.coercions).toEqual([
      "iteration 2, n0: rollback repeats child n1; n0 takes no more children",
      "iteration 3, n1: rollback repeats child n2; n1 takes no more children",
      "iteration 4, n2: rollback repeats child n3; n2 takes no more children",
    ]);
    expect(s.order).toEqual(["n0", "n1", "n2", "n3", "n4"]);
    expect(s.order.slice(1).map((id) => s.nodes[id].parentId)).toEqual(["n0", "n1", "n2", "n3"]);
    expect(s.iteration).toBe(4);
    expect(s.usage.selector.calls).toBe(7);
    expect(env.applied).toEqual(["R", "RR", "RRR", "RRRR"]);
  });

  it("rollbacks to different checkpoints or with other guidance are different actions", async () => {
    const env = fakeEnv({
      actions: [
        { kind: "rollback", checkpoint: "c1", guidance: "a" },
        { kind: "rollback", checkpoint: "c2", guidance: "a" },
        { kind: "rollback", checkpoint: "c1", guidance: "b" },
      ],
    });
    const s = createSearch(ROOT, { k: 3, iterations: 3 });
    await runRepairSearch(s, env);
    expect(s.nodes.n0.children).toEqual(["n1", "n2", "n3"]);
    expect(s.nodes.n0.saturated).toBeUndefined();
  });
});

describe("searchFailure: a search whose every node failed is a failure (issue 22 item 1)", () => {
  it("names the count and the first error; null once one node is usable", async () => {
    const env = fakeEnv({ actions: [{ kind: "rollback", checkpoint: "c1", guidance: "x" }, { kind: "rollback", checkpoint: "c2", guidance: "y" }], failApply: new Set(["R"]) });
    // Every apply of "R" throws: both children of the root fail (same ref "R").
    const s = createSearch(ROOT, { k: 2, iterations: 5 });
    await runRepairSearch(s, env);
    expect(s.order).toEqual(["n0", "n1", "n2"]);
    expect(s.stopped).toBe("exhausted");
    expect(searchFailure(s)).toBe("all 2 tree node(s) failed; first (n1): rollback failed: MAS diverged at R");
    const ok = createSearch(ROOT, { k: 2, iterations: 2 });
    await runRepairSearch(ok, fakeEnv({ actions: [{ kind: "rollback", checkpoint: "c1", guidance: "x" }] }));
    expect(searchFailure(ok)).toBeNull();
    const none = createSearch(ROOT, { iterations: 1 });
    none.stopped = "cancelled";
    expect(searchFailure(none)).toBe("no tree node was built (stopped: cancelled)");
  });
});

/**
 * A hand-built repair tree (lib/repair-search SearchState) for the tree view's unit test and its
 * Playwright spec: every value is chosen here, so N, Q/N, scores and the best path are known.
 *
 *   n0 root (τ_fail)            N 4  Q 1.8  Q/N 0.45
 *   ├─ n1 continuation    r 0.2 N 1  Q 0.2  FM 3.3
 *   └─ n2 rollback @cp    r 0.4 N 3  Q 1.6  Q/N 0.53  FM 2.6  guidance G
 *      ├─ n3 guided_repair r 0.9 N 1  Q 0.9  FM None  guidance G   ← best (max r)
 *      └─ n4 continuation  r 0.3 N 1  Q 0.3  FM 3.2
 *
 * `grow` adds the live step of the spec: n5, a continuation under n3 with r = 1 (solved), so the
 * best path becomes n0 → n2 → n3 → n5.
 */
import { createSearch, type BuiltState, type JudgeVerdict, type RepairAction, type SearchState, type TreeNode } from "../repair-search";

/** The rollback's guidance; contains markup to prove it is rendered as text. */
export const SAMPLE_GUIDANCE = "Look up <b>Clark Street</b> with the lookup tool before answering.";
export const SAMPLE_CHECKPOINT = "n-call-2";

function built(ref: string, liveSteps: number, finished: boolean): BuiltState {
  return { stateRef: ref, checkpoints: ["n-call-1", SAMPLE_CHECKPOINT], finished, liveSteps, usage: { calls: liveSteps, tokens: liveSteps * 100 } };
}

function add(s: SearchState, id: string, parentId: string, action: RepairAction, v: JudgeVerdict, o: { visits: number; q: number; iteration: number; stored?: string | null; liveSteps: number; finished?: boolean }): void {
  const p = s.nodes[parentId];
  const n: TreeNode = {
    id,
    parentId,
    depth: p.depth + 1,
    action,
    visits: o.visits,
    q: o.q,
    verdict: v,
    state: built(`${id}.bundle.json`, o.liveSteps, o.finished ?? false),
    storedGuidance: o.stored ?? null,
    children: [],
    error: null,
    iteration: o.iteration,
  };
  s.nodes[id] = n;
  p.children.push(id);
  s.order.push(id);
}

const V = (score: number, failureMode: string, feedback: string, foundSolution = false): JudgeVerdict => ({ score, failureMode, feedback, foundSolution });

/** The 5-node tree above after 4 iterations (usage: 4 selector, 4 judge, 9 MAS calls). */
export function sampleSearchState(): SearchState {
  const s = createSearch(built("source.bundle.json", 0, true), { iterations: 10 });
  add(s, "n1", "n0", { kind: "continuation" }, V(0.2, "FM 3.3", "Answer given without tool evidence."), { visits: 1, q: 0.2, iteration: 1, liveSteps: 4, finished: true });
  add(s, "n2", "n0", { kind: "rollback", checkpoint: SAMPLE_CHECKPOINT, guidance: SAMPLE_GUIDANCE }, V(0.4, "FM 2.6", "Rolled back before the unverified price."), { visits: 3, q: 1.6, iteration: 2, stored: SAMPLE_GUIDANCE, liveSteps: 0 });
  add(s, "n3", "n2", { kind: "guided_repair", guidance: SAMPLE_GUIDANCE }, V(0.9, "None", "Price looked up; answer not yet final."), { visits: 1, q: 0.9, iteration: 3, liveSteps: 4 });
  add(s, "n4", "n2", { kind: "continuation" }, V(0.3, "FM 3.2", "Same mistake again."), { visits: 1, q: 0.3, iteration: 4, stored: SAMPLE_GUIDANCE, liveSteps: 1, finished: true });
  s.nodes.n0.visits = 4;
  s.nodes.n0.q = 1.8;
  s.iteration = 4;
  s.bestId = "n3";
  s.maxR = 0.9;
  s.usage = { selector: { calls: 4, tokens: 1200 }, judge: { calls: 4, tokens: 2000 }, mas: { calls: 9, tokens: 900 } };
  return s;
}

/** The next iteration: n5 (continuation under n3, r = 1, solved) backpropagated; the search stops as "solved". */
export function grow(prev: SearchState): SearchState {
  const s = structuredClone(prev);
  add(s, "n5", "n3", { kind: "continuation" }, V(1, "None", "Correct answer with tool evidence.", true), { visits: 1, q: 1, iteration: 5, liveSteps: 2, finished: true });
  for (const id of ["n3", "n2", "n0"]) {
    s.nodes[id].visits += 1;
    s.nodes[id].q += 1;
  }
  s.iteration = 5;
  s.bestId = "n5";
  s.maxR = 1;
  s.stopped = "solved";
  s.usage.selector.calls += 1;
  s.usage.judge.calls += 1;
  s.usage.mas.calls += 2;
  return s;
}

/**
 * Types of the search-based repair core (seeds/002, MARS: Algorithm 1, eq. 1). Pure data: every
 * type here is JSON-serialisable so a search can be stored after each iteration and resumed.
 */

/** Settings of Algorithm 1; defaults are the paper's (seeds/002 "Implementation Details"). */
export interface SearchSettings {
  /** UCT exploration weight C of eq. (1). Default 1.41. */
  c: number;
  /** Branching factor K: a node is fully expanded at K children. Default 3. */
  k: number;
  /** Partial-rollout length L: live LLM boundaries run by guided_repair / continuation. Default 4. */
  l: number;
  /** Maximum depth D_max (root = 0); a node at D_max is never expanded. Default 8. */
  maxDepth: number;
  /** Iteration budget N_iter (one expansion each). Default 75. */
  iterations: number;
  /** Optional caps on what the search spends; reaching one stops the search cleanly. */
  budget: { maxCalls: number | null; maxTokens: number | null };
}

/** The paper's settings: C = 1.41, K = 3, L = 4, D_max = 8, N_iter = 75, no call/token cap. */
export const DEFAULT_SETTINGS: SearchSettings = Object.freeze({
  c: 1.41,
  k: 3,
  l: 4,
  maxDepth: 8,
  iterations: 75,
  budget: Object.freeze({ maxCalls: null, maxTokens: null }) as SearchSettings["budget"],
}) as SearchSettings;

/**
 * An expansion action (seeds/002 "Partial Rollout and Action Space"), exactly the selector's three tools:
 * - `rollback`: truncate the trajectory at `checkpoint` (a node id of the parent's trajectory) and
 *   store `guidance` for a later guided repair. Executes nothing.
 * - `guided_repair`: add `guidance` to the next LLM turn, then run L live steps.
 * - `continuation`: run L live steps with no guidance.
 */
export type RepairAction =
  | { kind: "rollback"; checkpoint: string; guidance: string }
  | { kind: "guided_repair"; guidance: string }
  | { kind: "continuation" };

/** Judge verdict for one trajectory: score r ∈ [0, 1], the MAST failure mode found, feedback f. */
export interface JudgeVerdict {
  score: number;
  /** "None", "FM X.Y" (one of the 14 MAST modes) or "Other". */
  failureMode: string;
  feedback: string;
  foundSolution: boolean;
}

/** Calls and tokens spent, by who spent them. */
export interface Usage {
  calls: number;
  tokens: number;
}
export interface SearchUsage {
  selector: Usage;
  judge: Usage;
  mas: Usage;
}

/**
 * What an environment reports about a tree node's trajectory after building it.
 * `stateRef` is opaque to the core (the service uses a bundle id or file path).
 */
export interface BuiltState {
  stateRef: string;
  /** Node ids of the trajectory a rollback may cut at, in observed order (the selector is shown them). */
  checkpoints: string[];
  /** The MAS process ended (a complete trajectory): only rollback can expand it further. */
  finished: boolean;
  /** Live LLM boundaries this expansion ran (≤ L for guided_repair / continuation; 0 for rollback). */
  liveSteps: number;
  usage: Usage;
}

/** One node of the repair tree. */
export interface TreeNode {
  /** "n0" for the root, then "n1", "n2", … in creation order. */
  id: string;
  parentId: string | null;
  depth: number;
  /** The action that built it (null for the root = the failed trajectory). */
  action: RepairAction | null;
  /** Visit count N and cumulative score Q (Algorithm 1 lines 20–21). */
  visits: number;
  q: number;
  /** The judge's verdict on this node's trajectory (null for the root until it is judged). */
  verdict: JudgeVerdict | null;
  state: BuiltState | null;
  /** Guidance stored by a rollback, used by a guided_repair child (seeds/002 Guided Repair). */
  storedGuidance: string | null;
  children: string[];
  /** Set when building or judging this node failed; such a node scores 0 and is never expanded. */
  error: string | null;
  /** The iteration that created it (0 for the root). */
  iteration: number;
  /**
   * Set when the selector proposed, for this node, a rollback one of its children already is
   * (same checkpoint and guidance; a rollback executes nothing, so it would be an identical
   * sibling): the node takes no more children (SymTrace; identical siblings are never built twice). Absent on states stored before this field existed.
   */
  saturated?: boolean;
}

/** Why a search stopped. */
export type StopReason = "solved" | "iterations" | "budget" | "exhausted" | "cancelled";

/** The whole, resumable search state. */
export interface SearchState {
  version: 1;
  settings: SearchSettings;
  nodes: Record<string, TreeNode>;
  /** Creation order of node ids. */
  order: string[];
  iteration: number;
  /** Best node so far (max judge score; the root until a child beats max_r = 0 strictly). */
  bestId: string;
  maxR: number;
  usage: SearchUsage;
  /** Selector replies that were not usable and the fallback applied (one line each). */
  coercions: string[];
  stopped: StopReason | null;
}

/** The view of a node the action selector gets. */
export interface SelectorInput {
  node: TreeNode;
  /** The node's checkpoints (ids a rollback may name). */
  checkpoints: string[];
  /** The stored guidance available to a guided repair (the nearest rollback's on the path), or null. */
  storedGuidance: string | null;
  /** The last judge feedback of this node (seeds/002: f is stored on the node and shown to the selector). */
  verdict: JudgeVerdict | null;
}

/**
 * I/O behind the core (the service implements it with selective replays, the LLM selector and the
 * LLM or command judge; tests implement it with a fake world).
 */
export interface SearchEnvironment {
  /** One action-selector call (seeds/002: T = 0.7, exactly one tool call). May throw on an unusable reply. */
  selectAction(input: SelectorInput): Promise<{ action: RepairAction; usage: Usage }>;
  /** Build the child's state from its parent's (rollback executes nothing; the others run ≤ L live steps). */
  apply(parent: TreeNode, action: RepairAction, settings: SearchSettings): Promise<BuiltState>;
  /** Judge a trajectory (seeds/002 taxonomy-augmented evaluation, T = 0.2). */
  judge(state: BuiltState): Promise<{ verdict: JudgeVerdict; usage: Usage }>;
}

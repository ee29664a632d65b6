/** Colours of the inspector's graph: node types (boxes, minimap, overview) and agents (lanes, stripes). */

/** Border / mark colour per node type (node boxes, the minimap's marks). */
export const TYPE_COLOUR: Readonly<Record<string, string>> = {
  agent_action: "#60a5fa",
  llm_call: "#a78bfa",
  tool_call: "#fbbf24",
  tool_result: "#34d399",
  message: "#cbd5e1",
  final_result: "#f43f5e",
};

/** Background per node type (node boxes). */
export const TYPE_BG: Readonly<Record<string, string>> = {
  agent_action: "#eff6ff",
  llm_call: "#f5f3ff",
  tool_call: "#fffbeb",
  tool_result: "#ecfdf5",
  message: "#ffffff",
  final_result: "#fff1f2",
};

const PALETTE = ["#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#0891b2", "#dc2626", "#4d7c0f", "#9333ea", "#0f766e"];

/**
 * A stable colour per agent: its position in `agents` (lanes in order of first appearance) picks
 * from a 10-colour palette; no agent (null) or an unknown one is slate.
 */
export function agentColor(agent: string | null, agents: ReadonlyArray<string | null>): string {
  const i = agent ? agents.indexOf(agent) : -1;
  return i < 0 ? "#94a3b8" : PALETTE[i % PALETTE.length];
}

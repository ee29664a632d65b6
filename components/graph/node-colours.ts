/** Colours of node types on the graphs drawn without React Flow (windowed rows, minimap, overview). */

/** Border / mark colour per node type (the minimap's marks, the windowed rows' borders). */
export const TYPE_COLOUR: Readonly<Record<string, string>> = {
  agent_action: "#60a5fa",
  llm_call: "#a78bfa",
  tool_call: "#fbbf24",
  tool_result: "#34d399",
  message: "#cbd5e1",
  final_result: "#f43f5e",
};

/** Background per node type (the windowed rows). */
export const TYPE_BG: Readonly<Record<string, string>> = {
  agent_action: "#eff6ff",
  llm_call: "#f5f3ff",
  tool_call: "#fffbeb",
  tool_result: "#ecfdf5",
  message: "#ffffff",
  final_result: "#fff1f2",
};

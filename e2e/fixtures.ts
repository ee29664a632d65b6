/**
 * Test data for e2e specs: each test seeds what it needs, with random ids, into the same real
 * database the app under test reads.
 */
import { randomUUID } from "node:crypto";
import { buildBundle, type ReplayBundle } from "../lib/bundle";
import { importCase, openDb } from "../lib/db";
import { E2E_DATABASE_URL } from "../playwright.config";

/** Store a bundle through lib/db (the same path as the CLI) and return it. */
export async function seedBundle(make: (id: string) => ReplayBundle): Promise<ReplayBundle> {
  const b = make(`e2e/${randomUUID()}`);
  const { db } = openDb(E2E_DATABASE_URL);
  try {
    await importCase(db, { bundle: b });
  } finally {
    await db.$disconnect();
  }
  return b;
}

export const HOSTILE_TEXT = `<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"> <b>not bold</b>`;

/** A small bundle whose task, labels and content carry HTML/JS markup. */
export function hostileBundle(id: string): ReplayBundle {
  return buildBundle({
    id,
    task: { prompt: `Task ${HOSTILE_TEXT}`, benchmark: "e2e" },
    config: { mas: "e2e-mas" },
    nodes: [
      { id: "task_0000", type: "message", agent: "User", label: "task", content: { text: "start" } },
      { id: "tool_result_0000", type: "tool_result", agent: "WebSurfer", label: `label ${HOSTILE_TEXT}`, content: { observation: HOSTILE_TEXT }, status: "error", error: { type: "HTTPError", message: "onerror=alert(1)" } },
      { id: "final_result", type: "final_result", agent: "Planner", label: "final", content: { answer: "42" } },
    ],
    edges: [
      { from: "task_0000", to: "tool_result_0000", kind: "control" },
      { from: "tool_result_0000", to: "final_result", kind: "data" },
    ],
    outcome: { passed: false, evaluator: "e2e" },
  });
}

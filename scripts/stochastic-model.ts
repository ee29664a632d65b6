/**
 * Start the seeded stochastic local model server (TEST SUPPORT, not a model: every answer says
 * `[seeded-stochastic-test-model]`) for trying the framework examples without an endpoint.
 *
 *   node --import tsx scripts/stochastic-model.ts [port=3363] [seed=1]
 *
 * Prints one JSON line `{ url, origin, model, seed }` and serves until killed: OPENAI_BASE_URL=url,
 * ANTHROPIC_BASE_URL=origin (lib/testing/stochastic-model/server.ts).
 */
import { startStochasticModel, STOCHASTIC_MODEL } from "../lib/testing/stochastic-model";

const port = Number(process.argv[2] ?? 3363);
const seed = Number(process.argv[3] ?? 1);
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`port must be 0–65535, got ${process.argv[2]}`);
if (!Number.isInteger(seed)) throw new Error(`seed must be an integer, got ${process.argv[3]}`);
// STOCHASTIC_MODEL_LOG=1: one stderr line per request (route, system prompt start, decision).
const log = process.env.STOCHASTIC_MODEL_LOG === "1";
const m = await startStochasticModel({
  port,
  seed,
  onServe: log ? (r, d) => process.stderr.write(`${r.route} [${(r.conversation?.system ?? "").slice(0, 40)}] -> ${d.calls.map((c) => `${c.name}(${c.arguments})`).join(", ") || d.text.slice(0, 80)}\n`) : undefined,
});
console.log(JSON.stringify({ url: m.url, origin: m.origin, model: STOCHASTIC_MODEL, seed }));
const stop = () => void m.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

import { performance } from "node:perf_hooks";
import { ReplaySession, fastHash, normalizeRequest } from "../lib/replay";
import { benchBundle } from "./bench-replay";
const { bundle, requests } = benchBundle(2000);
const raw = requests.map((r, i) => ({ ...r, user: `u${i}` }));
for (let rep = 0; rep < 3; rep++) {
  let t = performance.now();
  const s = new ReplaySession({ source: bundle });
  const ctor = performance.now() - t;
  t = performance.now();
  for (const q of raw) s.begin({ boundary: "llm", request: q });
  const loop = performance.now() - t;
  t = performance.now();
  for (const q of raw) fastHash(normalizeRequest("llm", q));
  const bare = performance.now() - t;
  console.log({ ctor: ctor.toFixed(0), loop: loop.toFixed(0), bare: bare.toFixed(0) });
}

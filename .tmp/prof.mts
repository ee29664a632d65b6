import { benchBodies } from "../scripts/bench-otlp";
import { indexProtobufRequest } from "../lib/otlp/codec";
import { storeOtlpBatch } from "../lib/db/otlp";
import { openDb } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { performance } from "node:perf_hooks";
const { bodies } = benchBodies(512 * 60, 512);
for (let round = 0; round < 2; round++) {
let t = performance.now();
const decs = bodies.map((b) => indexProtobufRequest(b));
console.log("index ms/req", ((performance.now() - t) / bodies.length).toFixed(2));
const url = `file:/tmp/prof-otlp-${round}.db`;
await migrate(url);
const { db } = openDb(url);
t = performance.now();
for (let i = 0; i < decs.length; i++) await storeOtlpBatch(db, { kind: "protobuf", body: Buffer.from(bodies[i]), keys: decs[i].keys });
console.log("store ms/req", ((performance.now() - t) / bodies.length).toFixed(2));
await db.$disconnect();
}

import { benchBodies } from "../scripts/bench-otlp";
import { indexProtobufRequest } from "../lib/otlp/codec";
import { storeOtlpBatch } from "../lib/db/otlp";
import { openDb } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
const { bodies } = benchBodies(512 * 60, 512);
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
for (let round = 0; round < 2; round++) {
let t = cpu();
const decs = bodies.map((b) => indexProtobufRequest(Buffer.from(b)));
console.log("index cpu ms/req", ((cpu() - t) / bodies.length).toFixed(2));
const url = `file:/tmp/prof-otlp-${round}.db`;
await migrate(url);
const { db } = openDb(url);
t = cpu();
for (let i = 0; i < decs.length; i++) await storeOtlpBatch(db, { kind: "protobuf", body: Buffer.from(bodies[i]), keys: decs[i].keys });
console.log("store cpu ms/req", ((cpu() - t) / bodies.length).toFixed(2));
await db.$disconnect();
}

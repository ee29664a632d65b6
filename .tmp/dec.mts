import { benchBodies } from "../scripts/bench-otlp";
import { indexProtobufRequest, otlpCodec } from "../lib/otlp/codec";
const bodies = benchBodies(512 * 40, 512).bodies.map((b) => Buffer.from(b));
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
const { request } = otlpCodec();
for (let r = 0; r < 3; r++) {
  let t = cpu(); for (const b of bodies) request.decode(b); const d = (cpu() - t) / bodies.length;
  t = cpu(); for (const b of bodies) indexProtobufRequest(b); const ix = (cpu() - t) / bodies.length;
  console.log("decode", d.toFixed(2), "index", ix.toFixed(2));
}

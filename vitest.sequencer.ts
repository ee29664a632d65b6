import { BaseSequencer, type TestSpecification } from "vitest/node";
import path from "node:path";

/**
 * Files that spawn processes or servers (real frameworks, the MAS, the CLI, job workers) run
 * first, in this order of folders; the many quick unit files fill the workers at the end. On a
 * clean clone (CI) vitest knows no durations and runs files in glob order, which put the five
 * framework examples (13–61 s each) last: one minute of tail with one or two workers busy
 * (issue 25 item 4). Once vitest has timings of its own (a local re-run), its order is kept.
 */
const SLOW_FIRST = ["examples/", "lib/services/attribution/", "lib/jobs/", "mas/", "cli/", "lib/db/", "lib/services/", "proxy/", "scripts/"];

export default class SlowFirstSequencer extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const root = this.ctx.config.root;
    const rel = (f: TestSpecification) => path.relative(root, f.moduleId).split(path.sep).join("/");
    if (files.every((f) => cache.getFileTestResults(`${f.project.name}:${rel(f)}`))) return super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((p) => rel(f).startsWith(p));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    return files.map((f, i) => ({ f, i, r: rank(f) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.f);
  }
}

import { BaseSequencer, type TestSpecification } from "vitest/node";
import path from "node:path";

/**
 * The framework examples first (`examples/`: each spawns its framework ~10–30 times; 10–30 s a
 * file), then vitest's own order. Without timings of its own (a clean clone, as in CI) vitest runs
 * larger files first, and the examples' test files are small: they started last and were the
 * suite's last ~35 s with most other files done (issue 25 item 4).
 */
export default class ExamplesFirstSequencer extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const first = (f: TestSpecification) => path.relative(root, f.moduleId).split(path.sep)[0] === "examples";
    return [...sorted.filter(first), ...sorted.filter((f) => !first(f))];
  }
}

/**
 * TEST HARNESS ONLY: scripts/worker.ts as a child process with FAKE experiment methods injected
 * (lib/jobs/experiment-fake-methods.ts, configured by SYMTRACE_FAKE_* variables) and, when
 * SYMTRACE_WORKER_FAKE_EXECUTOR=slow|fast|fail is set, a FAKE replay executor
 * (lib/jobs/fake-executor.ts: its result bundles are named `~fake-replay`). The production worker
 * (`npm run worker`) never loads either and ignores those variables; an experiment these fakes
 * touch is stamped `fake` in its frozen settings and report (issue 20 item 5).
 *
 *   node --import tsx lib/testing/fake-worker.ts     (same environment as scripts/worker.ts)
 */
import { newWorkerId } from "../jobs/job-worker";
import { fakeMethodsFromEnv } from "../jobs/experiment-fake-methods";
import { fakeExecutorFromEnv } from "../jobs/fake-executor";
import { runWorker } from "../../scripts/worker";

process.env.SYMTRACE_WORKER_ID ||= newWorkerId("worker:");
runWorker({ methods: fakeMethodsFromEnv(process.env, process.env.SYMTRACE_WORKER_ID), executor: fakeExecutorFromEnv(process.env, process.env.SYMTRACE_WORKER_ID) ?? undefined }).catch((e: unknown) => {
  process.stderr.write(`fake worker failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});

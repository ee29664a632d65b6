/**
 * TEST HARNESS ONLY: scripts/worker.ts as a child process with FAKE experiment methods injected
 * (lib/jobs/experiment-fake-methods.ts, configured by SYMTRACE_FAKE_* variables). The production
 * worker (`npm run worker`) never loads fake methods; an experiment these fakes touch is stamped
 * `fake` in its frozen settings and report (issue 20 item 5).
 *
 *   node --import tsx lib/testing/fake-worker.ts     (same environment as scripts/worker.ts)
 */
import { newWorkerId } from "../jobs/job-worker";
import { fakeMethodsFromEnv } from "../jobs/experiment-fake-methods";
import { runWorker } from "../../scripts/worker";

process.env.SYMTRACE_WORKER_ID ||= newWorkerId("worker:");
runWorker({ methods: fakeMethodsFromEnv(process.env, process.env.SYMTRACE_WORKER_ID) }).catch((e: unknown) => {
  process.stderr.write(`fake worker failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});

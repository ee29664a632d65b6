/**
 * JobWorker's hand-off (ctx.handOff, ./job-worker.ts): a job that gave its slot back runs on while
 * the polling loop claims the next; at most `concurrency` jobs hold a slot and at most twice that
 * run in all. An in-memory kind (no database): each job waits for a gate before and after its
 * hand-off, so the test decides the interleaving.
 */
import { describe, expect, test } from "vitest";
import type { Db } from "../db/client";
import { JobWorker, type JobContext, type JobKind } from "./job-worker";

interface Gate {
  promise: Promise<void>;
  open: () => void;
}
const gate = (): Gate => {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
};
const tick = (ms = 30) => new Promise((r) => setTimeout(r, ms));

function harness(n: number, handOff: boolean) {
  const queue = Array.from({ length: n }, (_, i) => `j${i}`);
  const slotGates = new Map(queue.map((id) => [id, gate()]));
  const restGates = new Map(queue.map((id) => [id, gate()]));
  const inSlot = new Set<string>();
  const running = new Set<string>();
  const done: string[] = [];
  let maxSlot = 0;
  let maxRunning = 0;
  const kind = {
    name: "experiment-attempt",
    label: "attempt",
    released: "released",
    queue: { name: "q", policy: "short", expireInSeconds: 60 },
    leaseMs: 60_000,
    cancel: "abort",
    claim: async () => null,
    claimNext: async () => {
      const id = queue.shift();
      return id ? { id } : null;
    },
    claimable: async () => [],
    renew: async () => ({ owned: true, cancel: false }),
    release: async () => true,
    sweep: async () => [],
    held: async () => [],
    run: async (job: { id: string }, ctx: JobContext) => {
      running.add(job.id);
      inSlot.add(job.id);
      maxSlot = Math.max(maxSlot, inSlot.size);
      maxRunning = Math.max(maxRunning, running.size);
      await slotGates.get(job.id)!.promise;
      inSlot.delete(job.id);
      if (handOff) {
        ctx.handOff();
        ctx.handOff(); // idempotent
      }
      await restGates.get(job.id)!.promise;
      running.delete(job.id);
      done.push(job.id);
    },
  } as unknown as JobKind;
  const w = new JobWorker(kind, { db: {} as Db, workerId: "w-handoff", concurrency: 2, idlePollMs: 10, log: () => {} });
  return { w, slotGates, restGates, inSlot, running, done, max: () => ({ slot: maxSlot, running: maxRunning }) };
}

describe("JobWorker hand-off", () => {
  test("handed-off jobs finish while the next ones hold the slots; at most 2 in slots and 4 running with concurrency 2", async () => {
    const t = harness(6, true);
    t.w.start();
    await tick();
    expect([...t.running].sort()).toEqual(["j0", "j1"]);
    t.slotGates.get("j0")!.open();
    t.slotGates.get("j1")!.open();
    await tick();
    // j0 and j1 gave their slots back and still run; j2 and j3 took the slots.
    expect([...t.inSlot].sort()).toEqual(["j2", "j3"]);
    expect([...t.running].sort()).toEqual(["j0", "j1", "j2", "j3"]);
    t.slotGates.get("j2")!.open();
    t.slotGates.get("j3")!.open();
    await tick();
    // Two slots free again, but four jobs run: nothing more is claimed.
    expect([...t.running].sort()).toEqual(["j0", "j1", "j2", "j3"]);
    expect(t.inSlot.size).toBe(0);
    t.restGates.get("j0")!.open();
    await tick();
    expect([...t.inSlot]).toEqual(["j4"]);
    for (const id of ["j1", "j2", "j3", "j4", "j5"]) {
      t.slotGates.get(id)!.open();
      t.restGates.get(id)!.open();
    }
    await tick(60);
    expect([...t.done].sort()).toEqual(["j0", "j1", "j2", "j3", "j4", "j5"]);
    expect(t.max()).toEqual({ slot: 2, running: 4 });
    await t.w.stop({ graceMs: 100 });
  });

  test("without a hand-off a job keeps its slot to the end: at most 2 run", async () => {
    const t = harness(4, false);
    t.w.start();
    await tick();
    t.slotGates.get("j0")!.open();
    t.slotGates.get("j1")!.open();
    await tick();
    expect([...t.running].sort()).toEqual(["j0", "j1"]);
    for (const id of ["j0", "j1", "j2", "j3"]) {
      t.slotGates.get(id)!.open();
      t.restGates.get(id)!.open();
    }
    await tick(60);
    expect(t.done.length).toBe(4);
    expect(t.max()).toEqual({ slot: 2, running: 2 });
    await t.w.stop({ graceMs: 100 });
  });
});

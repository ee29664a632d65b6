/**
 * What one experiment-attempt worker reads again for every attempt, kept between its attempts
 * (issue 25 item 1): each attempt exported its source case from the database (the case row with
 * every node, edge and boundary record: four queries and the row mapping), read the frozen
 * settings, and checked the budget twice (a query each, also for experiments without a budget).
 * With 9 methods × k attempts per case that is the same case exported 9k times.
 *
 * Kept, and how it stays right:
 * - the source bundle, keyed by the case row id and its `bundleHash` (one small query per
 *   attempt reads both; a re-imported case with other content has another hash — importCase
 *   replaces it under a new row id, the streamed import updates the hash). Each attempt gets its
 *   own deep copy (`structuredClone`), so a method that changes its input changes nothing here;
 * - the experiment's `settingsJson`, until this worker stamps it (`forgetSettings`: the fake
 *   stamp is the only later write of that column, lib/db/experiments.ts stampFakeExperiment);
 * - whether the experiment has a budget (`maxCalls` / `maxTokens` are written once, at creation):
 *   without one, `checkBudget` always answers false, so it need not be asked;
 * - the experiment's case rows (written once, at creation; never updated).
 * At most `MAX_BUNDLES` bundles (least recently used out first).
 */
import type { ReplayBundle } from "../../bundle";
import type { Db } from "../../db/client";
import type { ExperimentCase } from "../../generated/sqlite/client";
import { exportBundle } from "../../db/cases";

/** Source bundles kept at most per worker. */
export const MAX_BUNDLES = 64;

export class AttemptContextCache {
  private readonly bundles = new Map<string, ReplayBundle>();
  private readonly settings = new Map<string, string>();
  private readonly budgeted = new Map<string, boolean>();
  private readonly cases = new Map<string, ExperimentCase>();

  /**
   * An experiment case row (read once; a copy per call).
   * @returns null when it does not exist (not kept: asked again next time)
   */
  async experimentCase(db: Db, id: string): Promise<ExperimentCase | null> {
    let r = this.cases.get(id);
    if (!r) {
      const fresh = await db.experimentCase.findUnique({ where: { id } });
      if (!fresh) return null;
      r = fresh;
      this.cases.set(id, r);
    }
    return { ...r };
  }

  /**
   * The source case of an experiment case as `exportBundle` gives it: by its case row id, else
   * (the row is gone) by bundle id — as buildAttemptContext always looked it up.
   * @returns a deep copy the caller owns, or null when the case no longer exists
   */
  async sourceBundle(db: Db, ref: { caseId: string | null; bundleId: string }): Promise<ReplayBundle | null> {
    const head =
      (ref.caseId ? await db.case.findUnique({ where: { id: ref.caseId }, select: { id: true, bundleHash: true } }) : null) ??
      (await db.case.findUnique({ where: { bundleId: ref.bundleId }, select: { id: true, bundleHash: true } }));
    if (!head) return null;
    const key = `${head.id}:${head.bundleHash}`;
    let b = this.bundles.get(key);
    if (b) {
      this.bundles.delete(key); // most recently used last
      this.bundles.set(key, b);
    } else {
      const fresh = await exportBundle(db, { caseId: head.id });
      if (!fresh) return null;
      b = fresh;
      this.bundles.set(key, b);
      while (this.bundles.size > MAX_BUNDLES) this.bundles.delete(this.bundles.keys().next().value as string);
    }
    return structuredClone(b);
  }

  /**
   * The experiment's `settingsJson` (read once until {@link forgetSettings}).
   * @returns null when the experiment no longer exists
   */
  async settingsJson(db: Db, experimentId: string): Promise<string | null> {
    const kept = this.settings.get(experimentId);
    if (kept !== undefined) return kept;
    const e = await db.experiment.findUnique({ where: { id: experimentId }, select: { settingsJson: true } });
    if (!e) return null;
    this.settings.set(experimentId, e.settingsJson);
    return e.settingsJson;
  }

  /** Read the settings again next time (this worker just changed them). */
  forgetSettings(experimentId: string): void {
    this.settings.delete(experimentId);
  }

  /**
   * Whether the experiment has a budget to check (read once): false when it has neither
   * `maxCalls` nor `maxTokens` (then `checkBudget` answers false); true otherwise, and while the
   * experiment does not exist (then `checkBudget` decides, and it is asked again next time).
   */
  async mayHaveBudget(db: Db, experimentId: string): Promise<boolean> {
    const kept = this.budgeted.get(experimentId);
    if (kept !== undefined) return kept;
    const e = await db.experiment.findUnique({ where: { id: experimentId }, select: { maxCalls: true, maxTokens: true } });
    if (!e) return true;
    const has = e.maxCalls != null || e.maxTokens != null;
    this.budgeted.set(experimentId, has);
    return has;
  }
}

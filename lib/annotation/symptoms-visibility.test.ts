import { describe, expect, test } from "vitest";
import { canSeeSymptoms } from "./visibility";

const s = (o: Partial<{ isAssignedAnnotator: boolean; hasSubmittedInitial: boolean; isAssignedAdjudicator: boolean; isAssisted: boolean }>) => ({ isAssignedAnnotator: false, hasSubmittedInitial: false, isAssignedAdjudicator: false, ...o });

describe("canSeeSymptoms (issue 12: a detector's guess is a label)", () => {
  test("researchers and adjudicators always; an assigned annotator only after submitting or when assisted", () => {
    expect(canSeeSymptoms({ id: "r", roles: ["researcher"] }, s({}))).toBe(true);
    expect(canSeeSymptoms({ id: "j", roles: ["adjudicator"] }, s({ isAssignedAdjudicator: true }))).toBe(true);
    expect(canSeeSymptoms({ id: "a", roles: ["annotator"] }, s({ isAssignedAnnotator: true }))).toBe(false);
    expect(canSeeSymptoms({ id: "a", roles: ["annotator"] }, s({ isAssignedAnnotator: true, hasSubmittedInitial: true }))).toBe(true);
    expect(canSeeSymptoms({ id: "a", roles: ["annotator"] }, s({ isAssignedAnnotator: true, isAssisted: true }))).toBe(true);
    // assisted applies to the annotator's own assignment only; a researcher assigned to annotate stays blind
    expect(canSeeSymptoms({ id: "x", roles: ["annotator", "researcher"] }, s({ isAssignedAnnotator: true }))).toBe(false);
    expect(canSeeSymptoms({ id: "p", roles: ["annotator"] }, s({}))).toBe(false);
  });
});

import { describe, expect, test } from "vitest";
import { existingUserHint, userSavedMessage } from "./user-form";

describe("admin user form wording", () => {
  test("saving an existing email says it updated that user, with the roles", () => {
    expect(userSavedMessage({ email: "ann@x.org", roles: ["annotator", "admin"], status: "updated" })).toBe(
      "Updated existing user ann@x.org (roles annotator, admin).",
    );
    expect(userSavedMessage({ email: "new@x.org", roles: ["annotator"], status: "created" })).toBe("Created user new@x.org (roles annotator).");
    expect(userSavedMessage({ email: "n@x.org", roles: [], status: "created" })).toBe("Created user n@x.org (no roles).");
  });

  test.each([
    [" Ann@X.org ", "This email exists: saving updates that user (ann@x.org)."],
    ["ann@x.org", "This email exists: saving updates that user (ann@x.org)."],
    ["bob@x.org", null],
    ["", null],
  ])("hint for %j", (typed, hint) => {
    expect(existingUserHint(typed, ["ann@x.org", "carl@x.org"])).toBe(hint);
  });
});

/**
 * Wording of the admin's "Save account" form (issue 11 item 7c). Pure: no I/O, no React.
 * Emails compare as `lib/db` `upsertUser` stores them: trimmed and lower-cased.
 */

/** The email as `upsertUser` stores it. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The confirmation after saving: `Updated existing user x@y (roles annotator, admin).` or
 * `Created user x@y (roles annotator).`; "no roles" when the list is empty.
 */
export function userSavedMessage(r: { email: string; roles: readonly string[]; status: "created" | "updated" }): string {
  const roles = r.roles.length ? `roles ${r.roles.join(", ")}` : "no roles";
  return r.status === "updated" ? `Updated existing user ${r.email} (${roles}).` : `Created user ${r.email} (${roles}).`;
}

/**
 * The hint shown before submit when the typed email is an existing account listed on the page,
 * else null. `existing` holds the emails listed (any case).
 */
export function existingUserHint(typed: string, existing: readonly string[]): string | null {
  const e = normalizeEmail(typed);
  if (e === "") return null;
  return existing.some((x) => normalizeEmail(x) === e) ? `This email exists: saving updates that user (${e}).` : null;
}

/** Release import (issue 14 item 1): work in progress. */
import type { Db } from "../db";

/** `release import <dir>`: not written yet (this commit only fixes the CLI's extension point). */
export async function importReleaseCommand(_db: Db, dir: string): Promise<{ code: number; output: unknown }> {
  return { code: 1, output: { ok: false, errors: [{ path: "$", message: `release import ${dir}: not implemented yet` }] } };
}

/**
 * Test support: poll until a condition holds.
 *
 * @param what    named in the timeout error ("timed out waiting for <what>")
 * @param f       the probe; its first truthy result is returned
 * @param timeoutMs give up after this many milliseconds (default 30,000)
 * @param everyMs   pause between probes in milliseconds (default 100)
 * @returns the probe's first truthy value
 * @throws Error when `timeoutMs` passes without one
 */
export async function waitFor<T>(what: string, f: () => Promise<T | null | undefined | false>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

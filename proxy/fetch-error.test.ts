/** fetchErrorText: a failed fetch names its cause (undici's message alone is "fetch failed"). */
import net from "node:net";
import { describe, expect, test } from "vitest";
import { fetchErrorText } from "./fetch-error";

/** A local port nobody listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe("fetchErrorText", () => {
  test("a refused connection: the message and its cause", async () => {
    const port = await closedPort();
    const e = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`).catch((x: unknown) => x);
    expect(fetchErrorText(e)).toBe(`fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  test("an error without a cause, a cause already in the message, a cause with only a code, a non-error", () => {
    expect(fetchErrorText(new Error("boom"))).toBe("boom");
    expect(fetchErrorText(Object.assign(new Error("x: ETIMEDOUT"), { cause: { message: "ETIMEDOUT" } }))).toBe("x: ETIMEDOUT");
    expect(fetchErrorText(Object.assign(new Error("fetch failed"), { cause: { code: "ENOTFOUND" } }))).toBe("fetch failed: ENOTFOUND");
    expect(fetchErrorText("plain")).toBe("plain");
  });
});

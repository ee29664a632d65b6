import { describe, expect, test } from "vitest";
import { formatBytes } from "./bytes";

describe("formatBytes", () => {
  test.each([
    [0, "0 B"],
    [900, "900 B"],
    [1024, "1 KiB"],
    [1536, "1.5 KiB"],
    [256 * 1024 * 1024, "256 MiB"],
    [3 * 1024 ** 3, "3 GiB"],
  ])("%d bytes -> %s", (n, s) => {
    expect(formatBytes(n)).toBe(s);
  });
});

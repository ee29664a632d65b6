import { expect, test } from "vitest";
import { fixed } from "./fixed";

test("no negative zero: −2.5e-16 reads 0.000; real negatives and positives keep their sign", () => {
  expect(fixed(-2.5e-16)).toBe("0.000");
  expect(fixed(-0)).toBe("0.000");
  expect(fixed(-0.0004)).toBe("0.000");
  expect(fixed(-0.125)).toBe("-0.125");
  expect(fixed(0.79021)).toBe("0.790");
  expect(fixed(-2.5e-16, 2)).toBe("0.00");
});

/**
 * Packed rows (./stream-rows.ts RowPacker / unpackRows), the form in which the reader's worker
 * thread sends rows to the inserting thread: the same cells come back, in order, after a
 * structured clone as postMessage makes it.
 */
import { deserialize, serialize } from "node:v8";
import { describe, expect, test } from "vitest";
import { RowPacker, unpackRows, type PackedRows } from "./stream-rows";

describe("RowPacker / unpackRows", () => {
  test("strings (empty, multi-byte, surrogate pairs, lone surrogates), nulls, numbers round-trip in order", () => {
    const rows: unknown[][] = [
      ["a", "", null, 0, -0, 1.5],
      ["é😀\ud800", "{\"k\":[1,2]}", "x".repeat(5000), 2 ** 53 + 2, -1e300, null],
      ["", "", "", 7, 8, 9],
    ];
    const p = new RowPacker();
    for (const r of rows) p.add(r);
    expect(p.count).toBe(3);
    const packed = deserialize(serialize(p.take())) as PackedRows;
    expect(p.count).toBe(0);
    expect(p.take()).toBeNull();
    expect(packed.width).toBe(6);
    expect(Array.from(packed.cells.slice(0, 6))).toEqual([1, 0, -1, -2, -2, -2]);
    const back: unknown[][] = [];
    expect(unpackRows(packed, (r) => back.push(r))).toBe(3);
    expect(back).toEqual(rows);
    expect(Object.is(back[0][4], -0)).toBe(true);
  });

  test("undefined cells come back as null; other kinds of cells and a row of another width are refused", () => {
    const p = new RowPacker();
    p.add(["id", undefined, 3]);
    const back: unknown[][] = [];
    unpackRows(p.take() as PackedRows, (r) => back.push(r));
    expect(back).toEqual([["id", null, 3]]);
    const q = new RowPacker();
    expect(() => q.add(["x", true])).toThrow("a row cell of type boolean cannot be packed");
    const w = new RowPacker();
    w.add(["a", "b"]);
    expect(() => w.add(["a"])).toThrow("row of 1 cells where 2 were packed");
  });
});

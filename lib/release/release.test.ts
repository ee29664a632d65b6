import { describe, expect, test } from "vitest";
import { sha256Hex, sha256sumsText, verifyChecksums } from "./checksums";
import { licenceOf } from "./licences";
import { countBy, releaseCounts, type ReleaseCase } from "./manifest";
import { pseudonymMap, scrubIdentities } from "./pseudonym";

describe("pseudonymMap", () => {
  test("same label → same pseudonym for a key; another key gives others; no label text leaks", () => {
    const a = pseudonymMap(["ann@x.org", "bob@x.org", "ann@x.org"], "k1");
    expect(a.size).toBe(2);
    expect(a.get("ann@x.org")).toMatch(/^person-[0-9a-f]{8}$/);
    expect(pseudonymMap(["bob@x.org", "ann@x.org"], "k1")).toEqual(a);
    expect(pseudonymMap(["ann@x.org"], "k2").get("ann@x.org")).not.toBe(a.get("ann@x.org"));
    // HMAC-SHA256("k1", "ann@x.org"), first 8 hex digits (RFC 2104 via node:crypto, checked with openssl)
    expect(a.get("ann@x.org")).toBe("person-6228e279");
  });

  test("colliding prefixes are lengthened until every pseudonym differs", () => {
    const labels = Array.from({ length: 40 }, (_, i) => `user${i}@example.org`);
    const m = pseudonymMap(labels, "key", 1); // 16 one-digit prefixes for 40 labels: collisions certain
    expect(new Set(m.values()).size).toBe(40);
    const lengths = [...m.values()].map((p) => p.length - "person-".length);
    expect(Math.max(...lengths)).toBeGreaterThan(1);
    // no pseudonym is a prefix-collision left unresolved: a label with a 1-digit pseudonym is alone in its digit
    const ones = [...m.values()].filter((p) => p.length === "person-".length + 1);
    for (const p of ones) expect([...m.values()].filter((q) => q.startsWith(p)).length).toBe(1);
  });

  test("scrubIdentities replaces emails and names, whole words, any case; short names are left alone", () => {
    const ids = [
      { texts: ["ann@x.org", "Ann Lee"], replacement: "person-1" },
      { texts: ["al@x.org", "Al"], replacement: "[another account]" },
    ];
    expect(scrubIdentities("ANN LEE wrote to ann@x.org, cc al@x.org; Al said no. Annleen stays.", ids)).toBe("person-1 wrote to person-1, cc [another account]; Al said no. Annleen stays.");
    expect(scrubIdentities("nothing here", ids)).toBe("nothing here");
  });

  test("an empty key is refused", () => {
    expect(() => pseudonymMap(["a"], "")).toThrow(RangeError);
  });
});

describe("checksums", () => {
  test("sha256Hex is the standard digest; a changed or missing file is named", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const files = { "a.txt": Buffer.from("abc"), "b/c.json": Buffer.from("{}\n") };
    const listed = Object.entries(files).map(([path, b]) => ({ path, sha256: sha256Hex(b), bytes: b.byteLength }));
    expect(verifyChecksums(listed, (p) => files[p as keyof typeof files] ?? null)).toEqual([]);
    const problems = verifyChecksums([...listed, { path: "gone.txt", sha256: sha256Hex(""), bytes: 0 }], (p) => (p === "a.txt" ? Buffer.from("abd") : (files[p as keyof typeof files] ?? null)));
    expect(problems.map((p) => p.path)).toEqual(["a.txt", "gone.txt"]);
    expect(problems[0].message).toMatch(/^a\.txt was altered: sha256 [0-9a-f]{64} \(3 bytes\), manifest\.json records ba7816bf/);
    expect(problems[1].message).toBe("gone.txt is listed in manifest.json but missing from the release");
    expect(sha256sumsText(listed)).toBe(`${listed[0].sha256}  a.txt\n${listed[1].sha256}  b/c.json\n`);
  });
});

describe("licences and counts", () => {
  test("licence per source dataset; Langfuse only for the shared sample files", () => {
    expect(licenceOf("who_and_when")).toMatchObject({ licence: "MIT", licenseFile: "licenses/who_and_when.LICENSE.txt" });
    expect(licenceOf("mad")).toMatchObject({ licence: "CC-BY-4.0", licenseFile: null });
    expect(licenceOf("langfuse", ["openai-agents-2025-09-30.trace.json"])).toMatchObject({ licence: "MIT", licenseFile: "licenses/langfuse.LICENSE.txt" });
    expect(licenceOf("langfuse", ["openai-agents-2025-09-30.trace.json", "my-trace.json"]).licence).toBe("unspecified");
    expect(licenceOf("otlp").licence).toBe("unspecified");
  });

  test("counts by MAS / benchmark / dataset / final primary, missing values under (none)", () => {
    const c = (mas: string | null, primary: string | null, initial: number): ReleaseCase => ({
      bundleId: `${mas}/${primary}/${initial}`,
      file: "f",
      sha256: "0".repeat(64),
      bundleHash: "sha256:" + "0".repeat(64),
      sourceDataset: "bundle",
      sourceSubset: null,
      sourceFile: null,
      taskId: null,
      mas,
      benchmark: "GAIA",
      model: null,
      outcomePassed: false,
      initialAnnotations: initial,
      adjudicated: primary !== null,
      finalPrimary: primary,
    });
    const r = releaseCounts([c("ag2", "C1", 3), c("ag2", null, 2), c(null, "C3", 3)], { annotators: 3, adjudicators: 1 });
    expect(r).toEqual({
      cases: 3,
      adjudicated: 2,
      initialAnnotations: 8,
      finalAnnotations: 2,
      annotators: 3,
      adjudicators: 1,
      byMas: { "(none)": 1, ag2: 2 },
      byBenchmark: { GAIA: 3 },
      bySourceDataset: { bundle: 3 },
      byPrimaryCategory: { "(none)": 1, C1: 1, C3: 1 },
    });
    expect(Object.keys(countBy(["b", "a", "B"], (x) => x))).toEqual(["B", "a", "b"]);
  });
});

/**
 * detectInlineMedia (issue 10 item 6): base64 images in trace content are recognised, sized and
 * given a thumbnail only when they are PNG/JPEG/GIF/WebP by their bytes; SVG never gets one.
 */
import { describe, expect, test } from "vitest";
import { detectInlineMedia, formatBytes, sniffRaster } from "./inline-media";

const b64 = (bytes: number[], size: number) => {
  const buf = Buffer.alloc(size);
  Buffer.from(bytes).copy(buf);
  for (let i = bytes.length; i < size; i++) buf[i] = (i * 31) & 0xff;
  return buf.toString("base64");
};
const PNG_SIG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_SIG = [0xff, 0xd8, 0xff, 0xe0];
const GIF_SIG = [...Buffer.from("GIF89a")];
const WEBP_SIG = [...Buffer.from("RIFF"), 0, 0, 0, 0, ...Buffer.from("WEBP")];
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>' + " ".repeat(600)).toString("base64");

describe("detectInlineMedia", () => {
  test("a 270 KB PNG as a data: URL (360 KB of base64) is 'PNG, 270 KB' with a thumbnail", () => {
    const payload = b64(PNG_SIG, 270 * 1024);
    const s = `data:image/png;base64,${payload}`;
    expect(s.length).toBeGreaterThan(360_000);
    const m = detectInlineMedia(s)!;
    expect(m).toMatchObject({ mime: "image/png", kind: "PNG", bytes: 270 * 1024, summary: "PNG, 270 KB" });
    expect(m.thumbnailSrc).toBe(s);
  });

  test.each([
    ["JPEG", JPEG_SIG, "image/jpeg"],
    ["GIF", GIF_SIG, "image/gif"],
    ["WebP", WEBP_SIG, "image/webp"],
  ])("bare base64 %s (Anthropic source.data style) is recognised by its bytes", (kind, sig, mime) => {
    const m = detectInlineMedia(b64(sig, 3000))!;
    expect(m.kind).toBe(kind);
    expect(m.mime).toBe(mime);
    expect(m.bytes).toBe(3000);
    expect(m.thumbnailSrc).toBe(`data:${mime};base64,${b64(sig, 3000)}`);
  });

  test("SVG never gets a thumbnail, as a data: URL or bare", () => {
    expect(detectInlineMedia(`data:image/svg+xml;base64,${SVG}`)).toMatchObject({ kind: "SVG", thumbnailSrc: null });
    expect(detectInlineMedia(SVG)).toMatchObject({ kind: "SVG", mime: "image/svg+xml", thumbnailSrc: null });
    expect(detectInlineMedia(`data:image/svg+xml,<svg onload="alert(1)"/>`)).toMatchObject({ kind: "SVG", thumbnailSrc: null });
  });

  test("an SVG labelled image/png gets no thumbnail (the bytes decide), and the src is rebuilt from the detected type", () => {
    const m = detectInlineMedia(`data:image/png;base64,${SVG}`)!;
    expect(m.thumbnailSrc).toBeNull();
    expect(m.summary).toMatch(/^PNG, /);
    const png = b64(PNG_SIG, 100);
    expect(detectInlineMedia(`data:image/jpeg;foo=bar;base64,${png}`)!.thumbnailSrc).toBe(`data:image/png;base64,${png}`);
  });

  test("other data: URLs get a placeholder, ordinary text and short base64-looking tokens are not media", () => {
    expect(detectInlineMedia(`data:audio/wav;base64,${b64([0x52, 0x49, 0x46, 0x46], 2048)}`)).toMatchObject({ kind: "WAV", bytes: 2048, thumbnailSrc: null, summary: "WAV, 2 KB" });
    expect(detectInlineMedia("hello world")).toBeNull();
    expect(detectInlineMedia("sha256:" + "a".repeat(64))).toBeNull();
    expect(detectInlineMedia(b64(PNG_SIG, 100))).toBeNull(); // under MIN_BARE_BASE64 characters
    expect(detectInlineMedia("A".repeat(5000))).toBeNull(); // base64 alphabet, but no known signature
  });

  test("sniffRaster and formatBytes", () => {
    expect(sniffRaster(PNG_SIG)).toBe("image/png");
    expect(sniffRaster([0x3c, 0x73, 0x76, 0x67])).toBeNull();
    expect([formatBytes(812), formatBytes(270 * 1024), formatBytes(3 * 1024 * 1024 + 1)]).toEqual(["812 B", "270 KB", "3.0 MB"]);
  });
});

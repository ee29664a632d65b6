/**
 * Inline media in trace content (issue 10 item 6): vision requests carry images as base64, either
 * as a `data:` URL (OpenAI `image_url.url`) or as a bare base64 string (Anthropic
 * `source.data`, Gemini `inline_data.data`). The node panel must never print such a string as
 * text (a 360 KB image is 480,000 characters of noise) and must never let an image execute
 * (SVG). Pure and framework-free.
 *
 * Only the raster formats PNG, JPEG, GIF and WebP are ever shown, and only when the decoded bytes
 * start with that format's signature; the `data:` URL shown is rebuilt from the detected type and
 * the validated base64 payload (nothing else of the input reaches the `src`). Everything else that
 * is recognisably media (SVG, audio, PDF, unknown bytes under a `data:` URL) gets a placeholder.
 */

/** Raster formats shown as a thumbnail. */
export const RASTER_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type RasterType = (typeof RASTER_TYPES)[number];

/** What an inline-media string is. */
export interface InlineMedia {
  /** MIME type: detected from the bytes for raster images, else as declared (`image/svg+xml`, `audio/wav`, …). */
  mime: string;
  /** Short label: "PNG", "JPEG", "GIF", "WebP", "SVG", or the declared subtype upper-cased. */
  kind: string;
  /** Decoded size in bytes. */
  bytes: number;
  /** Length of the string in characters. */
  chars: number;
  /** A safe `data:` URL for an <img> (raster formats with a matching signature only), else null. */
  thumbnailSrc: string | null;
  /** "PNG, 270 KB" */
  summary: string;
}

/** Bare base64 strings shorter than this are left alone (could be an id or a hash). */
export const MIN_BARE_BASE64 = 512;

const DATA_URL = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)?((?:;[a-z0-9-]+=[^;,]*)*)(;base64)?,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64_URLSAFE = /^[A-Za-z0-9_-]*={0,2}$/;

/** Leading bytes of a base64 payload (at most n), decoded without Buffer/atob dependencies. */
function leadingBytes(b64: string, n: number): number[] {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const out: number[] = [];
  let bits = 0;
  let acc = 0;
  for (let i = 0; i < b64.length && out.length < n; i++) {
    const c = b64[i] === "-" ? 62 : b64[i] === "_" ? 63 : alphabet.indexOf(b64[i]);
    if (c < 0) break;
    acc = (acc << 6) | c;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  return out;
}

/** The raster format whose signature the bytes start with, or null. */
export function sniffRaster(bytes: readonly number[]): RasterType | null {
  const at = (i: number, sig: number[]) => sig.every((b, k) => bytes[i + k] === b);
  if (at(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (at(0, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (at(0, [0x47, 0x49, 0x46, 0x38])) return "image/gif";
  if (at(0, [0x52, 0x49, 0x46, 0x46]) && at(8, [0x57, 0x45, 0x42, 0x50])) return "image/webp";
  return null;
}

const KIND: Record<string, string> = { "image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WebP", "image/svg+xml": "SVG" };

/** "270 KB" (1 KB = 1,024 bytes; B below 1 KB, MB with one decimal from 1 MB). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024).toLocaleString("en")} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

function decodedSize(payload: string): number {
  const pad = payload.endsWith("==") ? 2 : payload.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((payload.length * 3) / 4) - pad);
}

function looksLikeSvg(bytes: number[]): boolean {
  const head = String.fromCharCode(...bytes).trimStart().toLowerCase();
  return head.startsWith("<svg") || head.startsWith("<?xml");
}

/**
 * Recognise inline media in a string of trace content.
 * @param s any string from node content, a request or a response
 * @returns null for ordinary text; else what the media is, its decoded size, a safe thumbnail
 *   `src` (PNG/JPEG/GIF/WebP whose bytes match) or null, and a summary such as "PNG, 270 KB".
 *   A `data:` URL is recognised at any length; a bare base64 string only from
 *   {@link MIN_BARE_BASE64} characters and only when its bytes start with a known signature (raster
 *   or SVG/XML), so ordinary tokens are never mistaken for media.
 */
export function detectInlineMedia(s: string): InlineMedia | null {
  const m = DATA_URL.exec(s.slice(0, 300));
  if (m) {
    const declared = (m[1] ?? "text/plain").toLowerCase();
    const isBase64 = !!m[3];
    const payload = s.slice(m[0].length);
    if (!isBase64) {
      const bytes = payload.length;
      const kind = KIND[declared] ?? (declared.split("/")[1] ?? declared).toUpperCase();
      return { mime: declared, kind, bytes, chars: s.length, thumbnailSrc: null, summary: `${kind}, ${formatBytes(bytes)}` };
    }
    const clean = payload.replace(/\s+/g, "");
    const valid = BASE64.test(clean) || BASE64_URLSAFE.test(clean);
    const head = valid ? leadingBytes(clean, 16) : [];
    const raster = sniffRaster(head);
    const mime = raster ?? declared;
    const kind = KIND[mime] ?? (mime.split("/")[1] ?? mime).toUpperCase();
    const bytes = decodedSize(clean);
    const thumbnailSrc = raster && BASE64.test(clean) ? `data:${raster};base64,${clean}` : null;
    return { mime, kind, bytes, chars: s.length, thumbnailSrc, summary: `${kind}, ${formatBytes(bytes)}` };
  }
  if (s.length < MIN_BARE_BASE64) return null;
  const clean = s.length < 2_000_000 ? s.replace(/\s+/g, "") : s;
  if (!(BASE64.test(clean) || BASE64_URLSAFE.test(clean))) return null;
  const head = leadingBytes(clean, 16);
  const raster = sniffRaster(head);
  if (!raster && !looksLikeSvg(head)) return null;
  const mime = raster ?? "image/svg+xml";
  const kind = KIND[mime];
  const bytes = decodedSize(clean);
  const thumbnailSrc = raster && BASE64.test(clean) ? `data:${raster};base64,${clean}` : null;
  return { mime, kind, bytes, chars: s.length, thumbnailSrc, summary: `${kind}, ${formatBytes(bytes)}` };
}

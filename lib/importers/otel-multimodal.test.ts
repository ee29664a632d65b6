/**
 * Issue 10 item 6: multimodal messages. The recorded request of a vision call keeps every content
 * part exactly (text and image parts, byte for byte), for OTLP/JSON with `input.value`, OpenInference
 * flattened `message_content` parts, and a Langfuse export; the image part renders as a thumbnail.
 * Every input here is hand-written.
 */
import { describe, expect, test } from "vitest";
import type { ReplayBundle } from "../bundle";
import { detectInlineMedia } from "../media/inline-media";
import { importOtel } from "./otel";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = Record<string, any>;
const TRACE = "0af7651916cd43dd8448eb211c80319c";
const T0 = 1_700_000_000_000_000_000n;
// A real 1x1 PNG.
const PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PARTS = [
  { type: "text", text: "What is in this picture?" },
  { type: "image_url", image_url: { url: PNG, detail: "high" } },
];

const attr = (key: string, v: string | number) =>
  typeof v === "string" ? { key, value: { stringValue: v } } : { key, value: { intValue: String(v) } };
const otlp = (attrs: Record<string, string | number>) =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [] },
        scopeSpans: [
          {
            scope: { name: "t" },
            spans: [
              {
                traceId: TRACE,
                spanId: "a000000000000001",
                parentSpanId: "",
                name: "ChatCompletion",
                kind: 1,
                startTimeUnixNano: String(T0),
                endTimeUnixNano: String(T0 + 2_000_000n),
                attributes: Object.entries(attrs).map(([k, v]) => attr(k, v)),
                status: { code: 1 },
              },
            ],
          },
        ],
      },
    ],
  });

function llmRequest(text: string): Any {
  const r = importOtel(text, { fileName: "vision.json" });
  expect(r.failures).toEqual([]);
  expect(r.cases).toHaveLength(1);
  const b: ReplayBundle = r.cases[0].bundle;
  const rec = b.records.find((x) => x.boundary === "llm");
  expect(rec).toBeDefined();
  return rec!.request as Any;
}

describe("issue 10 item 6: image parts of a vision call are kept in the imported request", () => {
  test("OTLP/JSON input.value (OpenAI chat request): text + image_url parts kept byte for byte", () => {
    const req = llmRequest(
      otlp({
        "openinference.span.kind": "LLM",
        "input.value": JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: PARTS }] }),
        "output.value": JSON.stringify({ choices: [{ message: { role: "assistant", content: "A red dot." } }] }),
      }),
    );
    expect(req.messages).toHaveLength(1);
    expect(req.messages[0].role).toBe("user");
    expect(JSON.stringify(req.messages[0].content)).toBe(JSON.stringify(PARTS));
  });

  test("OpenInference flattened message_content parts: the text and the image (url kept exactly) both survive", () => {
    const req = llmRequest(
      otlp({
        "openinference.span.kind": "LLM",
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.contents.0.message_content.type": "text",
        "llm.input_messages.0.message.contents.0.message_content.text": "What is in this picture?",
        "llm.input_messages.0.message.contents.1.message_content.type": "image",
        "llm.input_messages.0.message.contents.1.message_content.image.image.url": PNG,
        "output.value": "A red dot.",
      }),
    );
    expect(req.messages[0].content).toEqual([
      { type: "text", text: "What is in this picture?" },
      { type: "image_url", image_url: { url: PNG } },
    ]);
  });

  test("Langfuse export: a GENERATION whose input holds text + image_url parts keeps both", () => {
    const lf = JSON.stringify({
      trace: { id: "t1", name: "vision", timestamp: "2026-01-01T00:00:00.000Z", input: null, output: null },
      observations: [
        {
          id: "o1",
          traceId: "t1",
          type: "GENERATION",
          name: "ChatCompletion",
          startTime: "2026-01-01T00:00:00.000Z",
          endTime: "2026-01-01T00:00:01.000Z",
          parentObservationId: null,
          model: "gpt-4o",
          input: [{ role: "user", content: PARTS }],
          output: { role: "assistant", content: "A red dot." },
        },
      ],
    });
    const req = llmRequest(lf);
    expect(JSON.stringify(req.messages[0].content)).toBe(JSON.stringify(PARTS));
  });

  test("GenAI semconv parts: a blob part beside the text keeps both parts as written", () => {
    const parts = [
      { type: "text", content: "Describe." },
      { type: "blob", modality: "image", mime_type: "image/png", content: PNG.slice(22) },
    ];
    const req = llmRequest(
      otlp({
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": JSON.stringify([{ role: "user", parts }]),
        "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "A dot." }] }]),
      }),
    );
    expect(req.messages[0].content).toEqual(parts);
  });

  test("text-only parts still become one string (unchanged)", () => {
    const req = llmRequest(
      otlp({
        "openinference.span.kind": "LLM",
        "input.value": JSON.stringify({ messages: [{ role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }] }),
        "output.value": "x",
      }),
    );
    expect(req.messages[0].content).toBe("a\nb");
  });

  test("the kept image part renders as a PNG thumbnail (never as base64 text)", () => {
    const req = llmRequest(
      otlp({
        "openinference.span.kind": "LLM",
        "input.value": JSON.stringify({ messages: [{ role: "user", content: PARTS }] }),
        "output.value": "x",
      }),
    );
    const media = detectInlineMedia(req.messages[0].content[1].image_url.url);
    expect(media?.mime).toBe("image/png");
    expect(media?.thumbnailSrc).toBe(PNG);
  });
});

/**
 * OTLP/JSON request decoding (issue 22 item 5): what is and is not an ExportTraceServiceRequest.
 * Hand-written bodies.
 */
import { describe, expect, it } from "vitest";
import { decodeJsonRequest, indexJsonRequest, OtlpDecodeError } from "./codec";

describe("decodeJsonRequest: the JSON body must be an ExportTraceServiceRequest", () => {
  it("an object with other keys and no resourceSpans is refused, naming its keys", () => {
    expect(() => decodeJsonRequest('{"hello":1}')).toThrow(OtlpDecodeError);
    expect(() => decodeJsonRequest('{"hello":1}')).toThrow(/no "resourceSpans" \(its keys: "hello"\)/);
    // a snake_case key is not the OTLP/JSON field name either
    expect(() => indexJsonRequest('{"resource_spans":[]}')).toThrow(/no "resourceSpans"/);
  });

  it("the empty request {} is valid and has no spans (OTLP spec: an empty request succeeds)", () => {
    expect(decodeJsonRequest("{}")).toEqual({ spans: [], rejected: [] });
    expect(indexJsonRequest("{}")).toEqual({ keys: [], rejected: [] });
    expect(decodeJsonRequest('{"resourceSpans":[]}')).toEqual({ spans: [], rejected: [] });
  });

  it("not an object, or resourceSpans not an array, is refused", () => {
    expect(() => decodeJsonRequest("[]")).toThrow(OtlpDecodeError);
    expect(() => decodeJsonRequest("3")).toThrow(OtlpDecodeError);
    expect(() => decodeJsonRequest('{"resourceSpans":3}')).toThrow(/resourceSpans is not an array/);
  });
});

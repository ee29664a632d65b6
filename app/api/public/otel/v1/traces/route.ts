import { getDb } from "@/lib/db";
import { receiveOtlpTraces } from "@/lib/services/otlp-receiver";

export const dynamic = "force-dynamic";

/**
 * OTLP/HTTP trace export under the Langfuse-style prefix
 * (`OTEL_EXPORTER_OTLP_ENDPOINT=<app>/api/public/otel`): the same receiver as `/v1/traces`.
 */
export async function POST(req: Request) {
  return receiveOtlpTraces(getDb(), req);
}

import { getDb } from "@/lib/db";
import { receiveOtlpTraces } from "@/lib/services/otlp-receiver";

export const dynamic = "force-dynamic";

/**
 * OTLP/HTTP trace export (`OTEL_EXPORTER_OTLP_ENDPOINT=<app>`): protobuf or JSON, gzip, API key
 * (Bearer or Basic); see lib/services/otlp-receiver.ts. No session: the API key is the credential.
 */
export async function POST(req: Request) {
  return receiveOtlpTraces(getDb(), req);
}

import type { Metadata } from "next";
import { ImportUploader } from "@/components/import/import-uploader";
import { importMaxBytes } from "@/lib/services/import-upload";
import { requireViewer } from "@/lib/session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Import" };

/** Import trace files while the app runs (researchers and admins); the same import as `symtrace import`. */
export default async function ImportPage() {
  await requireViewer("researcher", "admin");
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-xl font-semibold">Import traces</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-600">
          Replay bundles, Who&amp;When records, MAST/MAD files and OpenTelemetry/Langfuse JSON exports, imported exactly as{" "}
          <code>symtrace import</code> does: each case in its own transaction, a file that fails is reported with the JSON path of each
          error and writes nothing, and a bundle already stored is skipped.
        </p>
      </div>
      <ImportUploader maxBytes={importMaxBytes()} />
    </div>
  );
}

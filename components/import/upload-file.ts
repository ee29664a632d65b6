/**
 * Browser side of the import page: send one file to POST /api/import with upload progress
 * (XMLHttpRequest upload events; fetch has no upload progress in browsers today).
 */

/** What the server answered for one file: the import report (200) or an error (4xx/5xx). */
export type UploadOutcome = { ok: true; report: ImportResult } | { ok: false; status: number; error: string };

/** The import report of one file as the route returns it (lib/services/import-upload UploadReport). */
export interface ImportResult {
  file: string;
  bytes: number;
  imported: number;
  skipped: number;
  replaced: number;
  /** `code: "format-needed"`: the format could not be told; the page offers the format choice. */
  failed: Array<{ file: string; errors: Array<{ path: string; message: string; code?: string }> }>;
  ignored: string[];
  cases: Array<{ bundleId: string; caseId: string; status: "imported" | "skipped" | "replaced" }>;
  /** Any further fields the import report carries (e.g. warnings), shown generically. */
  [extra: string]: unknown;
}

/**
 * Upload one file.
 * @param onProgress bytes sent so far and in all (called during the upload)
 * @param onUploaded called once every byte is sent (the server is importing)
 * @returns the server's report or error; a network failure is `{ ok: false, status: 0 }`
 */
export function uploadFile(
  file: File,
  format: string,
  onProgress: (loaded: number, total: number) => void,
  onUploaded: () => void,
): Promise<UploadOutcome> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/import?name=${encodeURIComponent(file.name)}&format=${encodeURIComponent(format)}`);
    xhr.setRequestHeader("content-type", "application/octet-stream");
    xhr.responseType = "text";
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.upload.onload = () => onUploaded();
    xhr.onerror = () => resolve({ ok: false, status: 0, error: "the upload failed (network error or the server closed the connection)" });
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON: reported below */
      }
      if (xhr.status === 200 && body && typeof body === "object") resolve({ ok: true, report: body as ImportResult });
      else {
        const msg = body && typeof body === "object" && typeof (body as { error?: unknown }).error === "string" ? (body as { error: string }).error : `HTTP ${xhr.status}`;
        resolve({ ok: false, status: xhr.status, error: msg });
      }
    };
    xhr.send(file);
  });
}

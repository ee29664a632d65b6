import type { Metadata } from "next";
import { getDb, listCaseFacets, pooledViewGate } from "@/lib/db";
import { listReleases } from "@/lib/services/release-store";
import { requireViewer } from "@/lib/session";
import { SelectField } from "@/components/ui/select-field";
import { BlindnessNotice } from "@/components/ui/blindness-notice";
import { createReleaseAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Releases" };

const fileHref = (name: string, rel: string) => `/api/releases/${encodeURIComponent(name)}/${rel.split("/").map(encodeURIComponent).join("/")}`;

/**
 * Dataset releases (issue 14 item 1), researchers and admins: "Create release" writes a versioned
 * release folder on the server (manifest, datasheet, bundles, pseudonymised annotations, agreement)
 * as `symtrace release export` does; each release downloads as one .tar.gz or file by file.
 */
export default async function ReleasesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const viewer = await requireViewer("researcher", "admin");
  // releases hold everyone's annotations: closed while the viewer has own unsubmitted assignments
  const gate = await pooledViewGate(getDb(), viewer, "releases");
  if (!gate.open) return <BlindnessNotice reason={gate.refusal!} />;
  const sp = await searchParams;
  const created = typeof sp.created === "string" ? sp.created : null;
  const error = typeof sp.error === "string" ? sp.error : null;
  const facets = await listCaseFacets(getDb());
  const releases = listReleases();
  return (
    <div className="flex flex-col gap-5">
      <h1 className="text-xl font-semibold">Releases</h1>
      <p className="max-w-3xl text-sm text-slate-600">
        A release is a versioned folder: <code>manifest.json</code> (cases, SHA-256 of every file, counts, licences), a datasheet <code>README.md</code>, every case&apos;s bundle, the initial and final annotations with
        annotators pseudonymised, and the agreement figures. It is written on the server; load it elsewhere with <code>npm run symtrace -- release import &lt;folder&gt;</code> into an empty database.
      </p>
      {error ? (
        <p role="alert" className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-800">
          {error}
        </p>
      ) : null}
      {created ? (
        <p role="status" className="rounded border border-green-300 bg-green-50 p-3 text-sm text-green-800">
          Release {created} written.
        </p>
      ) : null}
      <form action={createReleaseAction} className="flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-4 text-sm">
        <SelectField name="mas" label="MAS" options={facets.mas} />
        <SelectField name="benchmark" label="Benchmark" options={facets.benchmarks} />
        <div className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          <label htmlFor="field-status">Cases</label>
          <select id="field-status" name="status" defaultValue="adjudicated" className="rounded border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900">
            <option value="adjudicated">adjudicated only</option>
            <option value="all">all</option>
          </select>
        </div>
        <button type="submit" className="rounded bg-slate-900 px-3 py-1.5 text-white hover:bg-slate-700">
          Create release
        </button>
      </form>
      {releases.length === 0 ? (
        <p className="text-sm text-slate-600">No release yet.</p>
      ) : (
        <ul className="flex flex-col gap-3" data-testid="releases">
          {releases.map((r) => (
            <li key={r.name} className="rounded border border-slate-200 bg-white p-4 text-sm">
              <div className="flex flex-wrap items-baseline gap-3">
                <span className="font-semibold">{r.name}</span>
                <span className="text-slate-600">
                  {r.manifest.counts.cases} case(s), {r.manifest.counts.adjudicated} adjudicated · {r.manifest.counts.initialAnnotations} initial / {r.manifest.counts.finalAnnotations} final annotation(s)
                  {r.manifest.agreement ? ` · primary-category κ ${r.manifest.agreement.primaryCategoryKappa === null ? "undefined" : r.manifest.agreement.primaryCategoryKappa.toFixed(3)}` : ""} · {r.manifest.release.created}
                </span>
              </div>
              <p className="mt-1 text-xs text-slate-500">
                On the server: <code>{r.dir}</code>
              </p>
              <p className="mt-2 flex flex-wrap gap-3">
                <a className="font-medium text-blue-700 underline" href={`/api/releases/${encodeURIComponent(r.name)}.tar.gz`} data-testid="release-archive">
                  {r.name}.tar.gz (whole release)
                </a>
                {["manifest.json", "README.md", "annotations/annotations.json", "agreement.json", "SHA256SUMS"].map((f) => (
                  <a key={f} className="text-blue-700 underline" href={fileHref(r.name, f)}>
                    {f}
                  </a>
                ))}
              </p>
              <details className="mt-2">
                <summary className="cursor-pointer text-slate-600">{r.manifest.cases.length} bundle file(s)</summary>
                <ul className="mt-1 max-h-64 overflow-auto">
                  {r.manifest.cases.map((c) => (
                    <li key={c.file}>
                      <a className="text-blue-700 underline" href={fileHref(r.name, c.file)}>
                        {c.bundleId}
                      </a>
                    </li>
                  ))}
                </ul>
              </details>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * Deep links to cases use the bundle id (stable across databases), URL-encoded as one path
 * segment: `/cases/<encodeURIComponent(bundleId)>?node=<nodeId>`.
 */

/** Link to a case page, optionally with a node selected. */
export function caseHref(bundleId: string, nodeId?: string | null): string {
  const base = `/cases/${encodeURIComponent(bundleId)}`;
  return nodeId ? `${base}?node=${encodeURIComponent(nodeId)}` : base;
}

/**
 * The bundle id of a `[caseId]` route segment (Next may hand it over still encoded). The case
 * page is a catch-all, so `/cases/a/b/c` and `/cases/a%2Fb%2Fc` name the same bundle.
 */
export function bundleIdFromParam(param: string): string {
  try {
    return param.includes("%") ? decodeURIComponent(param) : param;
  } catch {
    return param;
  }
}

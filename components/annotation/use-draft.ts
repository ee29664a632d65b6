"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { emptyAnnotationFields, type AnnotationFields, type FieldError } from "@/lib/annotation";

export interface OwnAnnotation extends AnnotationFields {
  id: string;
  version: number;
  status: "draft" | "submitted";
  updatedAt: string;
  reopened?: { at: string; reason: string | null } | null;
}

export type SaveState =
  | { kind: "idle" }
  | { kind: "saving" }
  | { kind: "saved"; at: string }
  | { kind: "conflict"; message: string; current: OwnAnnotation | null }
  | { kind: "error"; message: string };

const pick = (a: AnnotationFields): AnnotationFields => ({
  categories: a.categories,
  primary: a.primary,
  nodeId: a.nodeId,
  nodeType: a.nodeType,
  confidence: a.confidence,
  rationale: a.rationale,
  evidence: a.evidence,
  correction: a.correction ?? "",
});

/**
 * A server-saved draft: edits autosave (debounced) with the version last read; a version
 * conflict keeps the local edits and shows the saved copy; field errors come back per field.
 */
export function useDraft(caseKey: string, kind: "initial" | "final", initial: OwnAnnotation | null) {
  const [fields, setFieldsState] = useState<AnnotationFields>(initial ? pick(initial) : emptyAnnotationFields());
  const [version, setVersion] = useState(initial?.version ?? 0);
  const [status, setStatus] = useState<"draft" | "submitted">(initial?.status ?? "draft");
  const [save, setSave] = useState<SaveState>(initial ? { kind: "saved", at: new Date(initial.updatedAt).toLocaleTimeString() } : { kind: "idle" });
  /** Edits not yet sent to the server. */
  const dirty = useRef(false);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [dirtyTick, setDirtyTick] = useState(0);
  const latest = useRef({ fields, version });
  useEffect(() => {
    latest.current = { fields, version };
  }, [fields, version]);
  const inflight = useRef<Promise<boolean> | null>(null);
  /** The pending autosave. An explicit save (e.g. before submitting) cancels it: otherwise it could
   * fire between that save and the submit and bump the version the submit sends (a false 409). */
  const autosave = useRef<ReturnType<typeof setTimeout> | null>(null);

  /** Save now; resolves true when saved (then `latestVersion()` is the saved version). */
  const saveNow = useCallback(async (): Promise<boolean> => {
    if (autosave.current) {
      clearTimeout(autosave.current);
      autosave.current = null;
    }
    if (inflight.current) await inflight.current;
    const run = (async () => {
      setSave({ kind: "saving" });
      const res = await fetch(`/api/cases/${caseKey}/annotations/mine`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ kind, version: latest.current.version, fields: latest.current.fields }),
      });
      const body = (await res.json().catch(() => ({}))) as { annotation?: OwnAnnotation; error?: string; fieldErrors?: FieldError[]; current?: OwnAnnotation };
      if (res.ok && body.annotation) {
        dirty.current = false;
        setVersion(body.annotation.version);
        latest.current.version = body.annotation.version;
        setErrors([]);
        setSave({ kind: "saved", at: new Date().toLocaleTimeString() });
        return true;
      }
      if (res.status === 409) {
        setSave({ kind: "conflict", message: body.error ?? "conflict", current: body.current ?? null });
        return false;
      }
      setErrors(body.fieldErrors ?? []);
      setSave({ kind: "error", message: body.error ?? `save failed (HTTP ${res.status})` });
      return false;
    })();
    inflight.current = run;
    try {
      return await run;
    } finally {
      inflight.current = null;
    }
  }, [caseKey, kind]);

  // Autosave 700 ms after the last edit.
  useEffect(() => {
    if (dirtyTick === 0 || status === "submitted") return;
    autosave.current = setTimeout(() => {
      autosave.current = null;
      if (dirty.current) void saveNow();
    }, 700);
    return () => {
      if (autosave.current) clearTimeout(autosave.current);
      autosave.current = null;
    };
  }, [dirtyTick, saveNow, status]);

  const setFields = useCallback((f: AnnotationFields) => {
    setFieldsState(f);
    latest.current.fields = f;
    dirty.current = true;
    setDirtyTick((t) => t + 1);
  }, []);

  // Leaving before the debounce fires (next case, reload, closing the tab) must not lose edits:
  // flush with a keepalive request, which the browser completes after the page is gone, and
  // ask before closing the tab while a save is pending.
  useEffect(() => {
    const flush = () => {
      if (!dirty.current || status === "submitted") return;
      dirty.current = false;
      void fetch(`/api/cases/${caseKey}/annotations/mine`, {
        method: "PUT",
        keepalive: true,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ kind, version: latest.current.version, fields: latest.current.fields }),
      }).catch(() => {});
    };
    const beforeUnload = (e: BeforeUnloadEvent) => {
      if (!dirty.current) return;
      flush();
      e.preventDefault();
    };
    window.addEventListener("pagehide", flush);
    window.addEventListener("beforeunload", beforeUnload);
    return () => {
      window.removeEventListener("pagehide", flush);
      window.removeEventListener("beforeunload", beforeUnload);
      flush(); // unmount: soft navigation to another case
    };
  }, [caseKey, kind, status]);

  /** Take the server's copy after a conflict (local edits are replaced). */
  const adoptServerCopy = useCallback((a: OwnAnnotation) => {
    setFieldsState(pick(a));
    setVersion(a.version);
    latest.current = { fields: pick(a), version: a.version };
    setSave({ kind: "saved", at: new Date().toLocaleTimeString() });
  }, []);

  const latestVersion = useCallback(() => latest.current.version, []);

  return { fields, setFields, version, latestVersion, setVersion, status, setStatus, save, saveNow, errors, setErrors, adoptServerCopy, pending: dirtyTick };
}

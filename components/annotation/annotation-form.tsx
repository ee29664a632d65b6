"use client";

import { useEffect } from "react";
import { CATEGORIES, CATEGORY_INFO, C2_C3_RULE, CONFIDENCE, CONFIDENCE_INFO, NODE_RULE, type AnnotationFields, type Category, type FieldError } from "@/lib/annotation";
import type { GraphNodeLite } from "@/lib/layout";
import { EarliestWarnings } from "./earliest-warnings";

/**
 * The strict tuple plus confidence, rationale, the optional proposed correction (issue 14) and
 * evidence (annotation-protocol.md). A pure view:
 * the parent owns the fields and saving. Field errors from the server show under their field.
 */
export function AnnotationForm({
  value,
  onChange,
  errors,
  selectedNode,
  onSelectNode,
  readOnly,
  idPrefix,
  caseKey,
}: {
  value: AnnotationFields;
  onChange: (next: AnnotationFields) => void;
  errors: FieldError[];
  selectedNode: GraphNodeLite | null;
  onSelectNode: (id: string) => void;
  readOnly: boolean;
  idPrefix: string;
  /** When given, the earliest-node check runs for the chosen node (warnings under "Failure node"). */
  caseKey?: string;
}) {
  const err = (field: string) => errors.filter((e) => e.field === field || e.field.startsWith(field + "[")).map((e) => e.message);
  const set = (patch: Partial<AnnotationFields>) => onChange({ ...value, ...patch });
  const toggle = (c: Category) => {
    const has = value.categories.includes(c);
    const categories = has ? value.categories.filter((x) => x !== c) : [...value.categories, c].sort();
    set({ categories, primary: value.primary && categories.includes(value.primary) ? value.primary : categories.length === 1 ? categories[0] : value.primary && !has ? value.primary : null });
  };
  // Keys 1–4 toggle C1–C4; Shift+1–4 sets the primary (adding the category when missing).
  // Ignored while typing in a field and in a read-only form.
  useEffect(() => {
    if (readOnly) return;
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null;
      if (el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable)) return;
      if (e.metaKey || e.ctrlKey || e.altKey) return;
      const m = /^Digit([1-4])$/.exec(e.code);
      if (!m) return;
      const c = CATEGORIES[Number(m[1]) - 1];
      e.preventDefault();
      if (!e.shiftKey) return toggle(c);
      const categories = value.categories.includes(c) ? value.categories : [...value.categories, c].sort();
      onChange({ ...value, categories, primary: c });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
  return (
    <fieldset disabled={readOnly} className="flex flex-col gap-4 text-sm" aria-label="Annotation">
      <div>
        <legend className="mb-1 font-semibold">
          Categories <span className="text-xs font-normal text-slate-500">(keys 1–4 toggle, Shift+1–4 set the primary)</span>
        </legend>
        <div className="flex flex-col gap-1">
          {CATEGORIES.map((c) => (
            <label key={c} className="flex items-start gap-2" title={`${CATEGORY_INFO[c].meaning}\nRepair signal: ${CATEGORY_INFO[c].repair}`}>
              <input type="checkbox" checked={value.categories.includes(c)} onChange={() => toggle(c)} aria-describedby={`${idPrefix}-${c}-def`} />
              <span>
                <span className="font-mono font-semibold">{c}</span> {CATEGORY_INFO[c].name}
                <span id={`${idPrefix}-${c}-def`} className="block text-xs text-slate-500">
                  {CATEGORY_INFO[c].meaning}
                </span>
              </span>
            </label>
          ))}
        </div>
        <details className="mt-1 text-xs text-slate-600">
          <summary className="cursor-pointer text-blue-700">C2 or C3?</summary>
          <p className="mt-1">{C2_C3_RULE}</p>
        </details>
        <FieldErrors messages={err("categories")} />
      </div>
      <div>
        <p className="mb-1 font-semibold" id={`${idPrefix}-primary`}>
          Primary category
        </p>
        <div className="flex gap-3" role="radiogroup" aria-labelledby={`${idPrefix}-primary`}>
          {CATEGORIES.map((c) => (
            <label key={c} className={`flex items-center gap-1 ${value.categories.includes(c) ? "" : "opacity-40"}`}>
              <input type="radio" name={`${idPrefix}-primary`} checked={value.primary === c} disabled={!value.categories.includes(c)} onChange={() => set({ primary: c })} />
              {c}
            </label>
          ))}
        </div>
        <FieldErrors messages={err("primary")} />
      </div>
      <div>
        <p className="mb-1 font-semibold">Failure node</p>
        <p className="text-xs text-slate-500" title={NODE_RULE}>
          The earliest actionable node connected to the failure. Click it in the graph or timeline, then use it here.
        </p>
        <div className="mt-1 flex flex-wrap items-center gap-2">
          {value.nodeId ? (
            <button type="button" className="rounded border border-slate-300 px-2 py-0.5 font-mono text-xs" onClick={() => onSelectNode(value.nodeId!)} data-testid="chosen-node">
              {value.nodeId} · {value.nodeType}
            </button>
          ) : (
            <span className="text-xs text-slate-500">none chosen</span>
          )}
          {selectedNode && selectedNode.id !== value.nodeId ? (
            <button type="button" className="rounded bg-slate-800 px-2 py-0.5 text-xs text-white disabled:opacity-40" onClick={() => set({ nodeId: selectedNode.id, nodeType: selectedNode.type })}>
              Use selected node ({selectedNode.id})
            </button>
          ) : null}
        </div>
        <FieldErrors messages={[...err("nodeId"), ...err("nodeType")]} />
        {caseKey && !readOnly ? <EarliestWarnings caseKey={caseKey} value={value} onSelectNode={onSelectNode} /> : null}
      </div>
      <div>
        <p className="mb-1 font-semibold" id={`${idPrefix}-conf`}>
          Confidence
        </p>
        <div className="flex flex-col gap-0.5" role="radiogroup" aria-labelledby={`${idPrefix}-conf`}>
          {CONFIDENCE.map((c) => (
            <label key={c} className="flex items-center gap-2">
              <input type="radio" name={`${idPrefix}-conf`} checked={value.confidence === c} onChange={() => set({ confidence: c })} />
              <span className="font-medium">{c}</span> <span className="text-xs text-slate-500">{CONFIDENCE_INFO[c]}</span>
            </label>
          ))}
        </div>
        <FieldErrors messages={err("confidence")} />
      </div>
      <label className="flex flex-col gap-1">
        <span className="font-semibold">Rationale</span>
        <textarea value={value.rationale} onChange={(e) => set({ rationale: e.target.value })} rows={4} className="rounded border border-slate-300 px-2 py-1" />
        <FieldErrors messages={err("rationale")} />
      </label>
      <label className="flex flex-col gap-1">
        <span className="font-semibold">
          Proposed correction <span className="text-xs font-normal text-slate-500">(optional)</span>
        </span>
        <span className="text-xs text-slate-500" id={`${idPrefix}-correction-help`}>
          The action or message that should have been produced at the failure node instead (e.g. the corrected tool call or answer). It can be used as the guidance of a replay from that node.
        </span>
        <textarea
          value={value.correction ?? ""}
          onChange={(e) => set({ correction: e.target.value })}
          rows={3}
          className="rounded border border-slate-300 px-2 py-1 font-mono text-xs"
          aria-label="Proposed correction"
          aria-describedby={`${idPrefix}-correction-help`}
        />
        <FieldErrors messages={err("correction")} />
      </label>
      <div>
        <p className="font-semibold">Evidence</p>
        <p className="text-xs text-slate-500">
          Select text inside a value of a node&apos;s content (Node tab) and press &ldquo;Quote selection as evidence&rdquo;; only value text is quoted, checked at once with the rule shown beside the button, and marked in the content.
        </p>
        <ul className="mt-1 flex flex-col gap-1" data-testid="evidence-list">
          {value.evidence.map((e, i) => (
            <li key={i} className="rounded border border-slate-200 p-1.5 text-xs">
              <div className="flex items-center justify-between gap-2">
                <button type="button" className="font-mono text-blue-700 underline" onClick={() => onSelectNode(e.nodeId)}>
                  {e.nodeId}
                </button>
                {!readOnly ? (
                  <button type="button" className="text-red-700" aria-label={`remove evidence ${i + 1}`} onClick={() => set({ evidence: value.evidence.filter((_, j) => j !== i) })}>
                    remove
                  </button>
                ) : null}
              </div>
              <q className="trace-text block text-slate-700">{e.quote}</q>
              <FieldErrors messages={errors.filter((x) => x.field.startsWith(`evidence[${i}]`)).map((x) => x.message)} />
            </li>
          ))}
        </ul>
      </div>
    </fieldset>
  );
}

export function FieldErrors({ messages }: { messages: string[] }) {
  if (!messages.length) return null;
  return (
    <ul className="mt-1 text-xs text-red-700" role="alert">
      {messages.map((m) => (
        <li key={m}>{m}</li>
      ))}
    </ul>
  );
}

/** A read-only summary of an annotation's strict tuple and the rest. */
export function AnnotationSummary({ a, onSelectNode, title, highlight }: { a: AnnotationFields & { author?: { name: string } }; onSelectNode: (id: string) => void; title: string; highlight?: Set<string> }) {
  return (
    <div className="rounded border border-slate-200 p-2 text-xs" data-testid="annotation-summary">
      <p className="mb-1 font-semibold">{title}</p>
      <p>
        Categories:{" "}
        {a.categories.map((c) => (
          <span key={c} className={`mr-1 rounded px-1 font-mono ${highlight?.has(c) ? "bg-amber-200" : "bg-slate-100"}`}>
            {c}
          </span>
        ))}
        · primary <span className="font-mono font-semibold">{a.primary}</span>
      </p>
      <p>
        Node:{" "}
        {a.nodeId ? (
          <button type="button" className="font-mono text-blue-700 underline" onClick={() => onSelectNode(a.nodeId!)}>
            {a.nodeId}
          </button>
        ) : (
          "—"
        )}{" "}
        ({a.nodeType}) · confidence {a.confidence ?? "—"}
      </p>
      {a.rationale ? <p className="trace-text mt-1 text-slate-700">{a.rationale}</p> : null}
      {a.correction?.trim() ? (
        <p className="mt-1" data-testid="annotation-correction">
          Proposed correction: <span className="trace-text whitespace-pre-wrap font-mono text-slate-700">{a.correction}</span>
        </p>
      ) : null}
      {a.evidence.length ? (
        <ul className="mt-1 list-inside list-disc">
          {a.evidence.map((e, i) => (
            <li key={i}>
              <span className="font-mono">{e.nodeId}</span>: <q className="trace-text">{e.quote}</q>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

"use client";

import { useState } from "react";
import { checkNewQuote, QUOTE_RULE_HELP, quoteFromSegments, type EvidenceQuote } from "@/lib/annotation/evidence";
import { selectedValueSegments, selectionTouches } from "./selection-quote";

/**
 * "Quote selection as evidence": reads the selection restricted to value text of the node's
 * content (never key names or punctuation), checks it with the same rule as submission
 * (lib/annotation/evidence.ts: found in one value after normalization, not a duplicate) and only
 * then hands it to `onQuote`; a refusal is shown with its reason. The rule is stated beside the button.
 * @param contentRoot the element holding the node's content tree (the only place quotes come from)
 */
export function QuoteControl({
  nodeId,
  content,
  evidence,
  contentRoot,
  onQuote,
}: {
  nodeId: string;
  content: unknown;
  evidence: EvidenceQuote[];
  contentRoot: () => Element | null;
  onQuote: (nodeId: string, quote: string) => void;
}) {
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const quote = () => {
    const sel = window.getSelection();
    const root = contentRoot();
    if (!sel || !root || sel.isCollapsed || !selectionTouches(sel, root)) {
      setMsg({ ok: false, text: "Select text inside a value of this node's Content first (evidence is checked against the content, not the records)." });
      return;
    }
    const taken = quoteFromSegments(selectedValueSegments(sel, root));
    if (!taken.ok) return setMsg({ ok: false, text: taken.message });
    const checked = checkNewQuote({ nodeId, content, quote: taken.quote, existing: evidence });
    if (!checked.ok) return setMsg({ ok: false, text: checked.message });
    onQuote(nodeId, checked.quote);
    setMsg({ ok: true, text: `Quoted ${checked.quote.length} characters of ${taken.valueKey} as evidence.` });
  };
  return (
    <div className="flex flex-col gap-1 text-xs">
      <div className="flex items-center gap-2">
        <button
          type="button"
          className="shrink-0 rounded border border-indigo-300 bg-indigo-50 px-2 py-1 font-medium text-indigo-800 hover:bg-indigo-100"
          onMouseDown={(e) => e.preventDefault() /* keep the text selection */}
          onClick={quote}
          aria-describedby="quote-rule-help"
        >
          Quote selection as evidence
        </button>
        {msg ? (
          <span className={msg.ok ? "text-slate-600" : "font-medium text-red-700"} role="status" data-testid="quote-message" data-ok={msg.ok}>
            {msg.text}
          </span>
        ) : null}
      </div>
      <p id="quote-rule-help" className="text-[11px] text-slate-500" data-testid="quote-rule-help">
        {QUOTE_RULE_HELP}
      </p>
    </div>
  );
}

/**
 * Reading an evidence quote from the browser's selection (Selection/Range API). Only value text
 * counts: JsonTree wraps the text of each string/number/boolean value in
 * `<span data-value-text data-value-key="$.path" data-value-offset="N">`; key names, JSON quotes,
 * colons, brackets and fold toggles are outside those spans and so never quoted. The pure part
 * (which characters of which value make the quote, refusals) is quoteFromSegments in
 * lib/annotation/evidence.ts.
 */
import type { SelectedSegment } from "@/lib/annotation/evidence";

/** The selected part [start, end) of a text node under a range ([0, 0] when none). */
function selectedInText(range: Range, t: Text): [number, number] {
  const len = t.data.length;
  let s = 0;
  let e = len;
  if (range.startContainer === t) s = range.startOffset;
  else if (range.comparePoint(t, 0) < 0) return [0, 0]; // the range starts after this text
  if (range.endContainer === t) e = range.endOffset;
  else if (range.comparePoint(t, len) > 0) return [0, 0]; // the range ends before this text
  return [s, Math.max(s, e)];
}

/**
 * The value-text portions under `root` that the selection touches, with the selected character
 * span of each (offsets into the portion's text, which may be split by <mark>s into several text
 * nodes). Every range of the selection is read (Firefox can hold several).
 * @returns [] when nothing in a value is selected
 */
export function selectedValueSegments(sel: Selection, root: Element): SelectedSegment[] {
  const out: SelectedSegment[] = [];
  for (let r = 0; r < sel.rangeCount; r++) {
    const range = sel.getRangeAt(r);
    if (!range.intersectsNode(root)) continue;
    for (const el of root.querySelectorAll<HTMLElement>("[data-value-text]")) {
      if (!range.intersectsNode(el)) continue;
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      let pos = 0;
      let start = -1;
      let end = -1;
      let text = "";
      for (let t = walker.nextNode() as Text | null; t; t = walker.nextNode() as Text | null) {
        const [s, e] = selectedInText(range, t);
        if (e > s) {
          if (start < 0) start = pos + s;
          end = pos + e;
        }
        pos += t.data.length;
        text += t.data;
      }
      if (start >= 0) out.push({ valueKey: el.dataset.valueKey ?? "?", offset: Number(el.dataset.valueOffset ?? 0), text, start, end });
    }
  }
  return out;
}

/** Whether any range of the selection touches `root`. */
export function selectionTouches(sel: Selection, root: Element): boolean {
  for (let r = 0; r < sel.rangeCount; r++) if (sel.getRangeAt(r).intersectsNode(root)) return true;
  return false;
}

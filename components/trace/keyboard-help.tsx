"use client";

export const SHORTCUTS: Array<[string, string]> = [
  ["j  or  ↓", "next node in observed order"],
  ["k  or  ↑", "previous node in observed order"],
  ["p", "go to the (first) parent"],
  ["c", "go to the (first) child"],
  ["/", "focus search in this trace"],
  ["n  /  N", "next / previous search match"],
  ["f", "fit the graph (readable zoom; a long trace fits the lanes' width, the wheel scrolls it, Ctrl+wheel zooms)"],
  [".", "centre the selected node"],
  ["]  /  [", "next / previous case in my queue"],
  ["?", "show or hide this list"],
  ["Esc", "close this list / leave the search box"],
];

/** The `?` overlay listing the inspector's keys. */
export function KeyboardHelp({ onClose }: { onClose: () => void }) {
  return (
    <div role="dialog" aria-modal="true" aria-labelledby="keys-title" className="fixed inset-0 z-50 flex items-center justify-center bg-slate-900/40" onClick={onClose}>
      <div className="w-96 rounded-lg bg-white p-5 shadow-xl" onClick={(e) => e.stopPropagation()}>
        <h2 id="keys-title" className="mb-3 text-base font-semibold">
          Keyboard shortcuts
        </h2>
        <table className="w-full text-sm">
          <tbody>
            {SHORTCUTS.map(([k, d]) => (
              <tr key={k}>
                <td className="py-1 pr-4 font-mono text-xs whitespace-nowrap">{k}</td>
                <td className="py-1 text-slate-700">{d}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" onClick={onClose} className="mt-4 rounded bg-slate-900 px-3 py-1.5 text-sm text-white">
          Close
        </button>
      </div>
    </div>
  );
}

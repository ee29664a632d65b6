"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { Viewport } from "@/lib/layout";

/**
 * The graph pane's viewport (screen = flow · zoom + (x, y)) and its pointer input: the wheel
 * scrolls (Shift or a horizontal wheel: sideways), Ctrl/⌘ + wheel zooms around the pointer, a drag
 * pans (batched per animation frame), and a press released without moving is a click
 * (`pointerHandlers(onClick)`: the pane decides what was clicked). Every new view goes through `clamp`
 * (zoom range, content kept on screen), read at the time of the change. `initial` is called once.
 * @returns the view, `setView` (a view or a function of the current one) and `pointerHandlers(onClick)`, the pane's pointer handlers
 */
export function usePanZoom(box: React.RefObject<HTMLDivElement | null>, initial: () => Viewport, clamp: (v: Viewport) => Viewport) {
  const [view, setRaw] = useState<Viewport>(initial);
  const clampRef = useRef(clamp);
  useEffect(() => {
    clampRef.current = clamp;
  }, [clamp]);
  const setView = useCallback((next: Viewport | ((v: Viewport) => Viewport)) => setRaw((v) => clampRef.current(typeof next === "function" ? next(v) : next)), []);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const rect = el.getBoundingClientRect();
      const px = e.clientX - rect.left;
      const py = e.clientY - rect.top;
      setView((v) => {
        if (e.ctrlKey || e.metaKey) {
          const zoom = v.zoom * Math.exp(-e.deltaY / 300);
          // keep the flow point under the pointer where it is
          return { zoom, x: px - ((px - v.x) / v.zoom) * zoom, y: py - ((py - v.y) / v.zoom) * zoom };
        }
        const dx = e.shiftKey ? e.deltaY : e.deltaX;
        const dy = e.shiftKey ? 0 : e.deltaY;
        return { ...v, x: v.x - dx, y: v.y - dy };
      });
    };
    el.addEventListener("wheel", onWheel, { passive: false });
    return () => el.removeEventListener("wheel", onWheel);
  }, [box, setView]);

  const drag = useRef<{ x: number; y: number; moved: boolean } | null>(null);
  const pending = useRef({ dx: 0, dy: 0 });
  const raf = useRef(0);
  const pointerHandlers = (onClick: (e: React.PointerEvent) => void) => {
    const onPointerDown = (e: React.PointerEvent) => {
      if (e.button !== 0) return;
      drag.current = { x: e.clientX, y: e.clientY, moved: false };
    };
    const onPointerMove = (e: React.PointerEvent) => {
      const d = drag.current;
      if (!d) return;
      const dx = e.clientX - d.x;
      const dy = e.clientY - d.y;
      if (!d.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
      if (!d.moved) (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
      d.moved = true;
      d.x = e.clientX;
      d.y = e.clientY;
      pending.current.dx += dx;
      pending.current.dy += dy;
      if (!raf.current) {
        raf.current = requestAnimationFrame(() => {
          raf.current = 0;
          const p = pending.current;
          pending.current = { dx: 0, dy: 0 };
          setView((v) => ({ ...v, x: v.x + p.dx, y: v.y + p.dy }));
        });
      }
    };
    const onPointerUp = (e: React.PointerEvent) => {
      const d = drag.current;
      drag.current = null;
      if (d && !d.moved) onClick(e);
    };
    const onPointerCancel = () => {
      drag.current = null;
    };
    return { onPointerDown, onPointerMove, onPointerUp, onPointerCancel };
  };
  return { view, setView, pointerHandlers };
}

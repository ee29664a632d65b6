"use client";
/**
 * Follows a run the workers are running: refreshes the page (progress, table) every 2 s while
 * `active`, so a run started from the form is seen to finish without reloading.
 */
import { useRouter } from "next/navigation";
import { useEffect } from "react";

export const FOLLOW_MS = 2000;

export function FollowAttributionRun({ active }: { active: boolean }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => router.refresh(), FOLLOW_MS);
    return () => clearInterval(t);
  }, [active, router]);
  return active ? <span className="text-xs text-slate-500">updating every {FOLLOW_MS / 1000} s</span> : null;
}

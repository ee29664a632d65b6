import type { BadgeTone } from "@/components/ui/badge";

/** Statuses of a repair search (design-15 storage contract) while the page polls. */
export const LIVE_STATUSES = ["queued", "running"];
/** Badge tone of each search status. */
export const STATUS_TONE: Record<string, BadgeTone> = { queued: "slate", running: "blue", completed: "green", failed: "red", cancelled: "amber", interrupted: "amber" };

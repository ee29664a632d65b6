import { redirect } from "next/navigation";
import { requireViewer } from "@/lib/session";

export const dynamic = "force-dynamic";

/** Home: annotators and adjudicators land on their queue, everyone else on the case list. */
export default async function Home() {
  const v = await requireViewer();
  redirect(v.roles.some((r) => r === "annotator" || r === "adjudicator") && !v.roles.includes("admin") ? "/queue" : "/cases");
}

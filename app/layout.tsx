import type { Metadata } from "next";
import Image from "next/image";
import Link from "next/link";
import { getViewer } from "@/lib/session";
import { signOutAction } from "./sign-in/actions";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "SymTrace Studio", template: "%s · SymTrace Studio" },
  description: "Inspect, annotate, adjudicate and replay failed multi-agent LLM traces.",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const viewer = await getViewer();
  const has = (r: string) => viewer?.roles.includes(r as never);
  return (
    <html lang="en">
      <body className="min-h-full font-sans">
        <header className="border-b border-slate-200 bg-white">
          <nav className="mx-auto flex max-w-[110rem] items-center gap-6 px-4 py-3 text-sm" aria-label="Main">
            <Link href="/" className="flex items-center gap-2 font-semibold tracking-tight text-slate-900">
              <Image src="/logo.svg" alt="" width={20} height={20} priority />
              SymTrace Studio
            </Link>
            {viewer ? (
              <>
                <Link href="/cases" className="text-slate-600 hover:text-slate-900">
                  Cases
                </Link>
                {has("annotator") || has("adjudicator") ? (
                  <Link href="/queue" className="text-slate-600 hover:text-slate-900">
                    My queue
                  </Link>
                ) : null}
                {has("researcher") || has("adjudicator") || has("admin") ? (
                  <Link href="/agreement" className="text-slate-600 hover:text-slate-900">
                    Agreement
                  </Link>
                ) : null}
                {has("researcher") || has("admin") ? (
                  <Link href="/experiments" className="text-slate-600 hover:text-slate-900">
                    Experiments
                  </Link>
                ) : null}
                {has("researcher") || has("admin") ? (
                  <Link href="/repair-searches" className="text-slate-600 hover:text-slate-900">
                    Repair searches
                  </Link>
                ) : null}
                {has("researcher") || has("admin") ? (
                  <Link href="/import" className="text-slate-600 hover:text-slate-900">
                    Import
                  </Link>
                ) : null}
                {has("researcher") || has("admin") ? (
                  <Link href="/releases" className="text-slate-600 hover:text-slate-900">
                    Releases
                  </Link>
                ) : null}
                {has("admin") ? (
                  <Link href="/admin" className="text-slate-600 hover:text-slate-900">
                    Admin
                  </Link>
                ) : null}
                <span className="ml-auto flex items-center gap-3 text-xs text-slate-600">
                  <span data-testid="viewer">
                    {viewer.name} · {viewer.roles.join(", ")}
                  </span>
                  <form action={signOutAction}>
                    <button type="submit" className="rounded border border-slate-300 px-2 py-1 hover:bg-slate-50">
                      Sign out
                    </button>
                  </form>
                </span>
              </>
            ) : null}
          </nav>
        </header>
        <main className="mx-auto max-w-[110rem] px-4 py-6">{children}</main>
      </body>
    </html>
  );
}

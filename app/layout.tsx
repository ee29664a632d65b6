import type { Metadata } from "next";
import Link from "next/link";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "SymTrace Studio", template: "%s · SymTrace Studio" },
  description: "Inspect, annotate, adjudicate and replay failed multi-agent LLM traces.",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-full font-sans">
        <header className="border-b border-slate-200 bg-white">
          <nav className="mx-auto flex max-w-7xl items-center gap-6 px-4 py-3 text-sm" aria-label="Main">
            <Link href="/cases" className="font-semibold tracking-tight text-slate-900">
              SymTrace Studio
            </Link>
            <Link href="/cases" className="text-slate-600 hover:text-slate-900">
              Cases
            </Link>
          </nav>
        </header>
        <main className="mx-auto max-w-7xl px-4 py-6">{children}</main>
      </body>
    </html>
  );
}

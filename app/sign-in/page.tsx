import type { Metadata } from "next";
import { SignInForm } from "@/components/auth/sign-in-form";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  return (
    <div className="mx-auto mt-16 max-w-sm rounded border border-slate-200 bg-white p-6">
      <h1 className="mb-4 text-lg font-semibold">Sign in to SymTrace Studio</h1>
      <SignInForm next={next ?? "/"} />
      <p className="mt-4 text-xs text-slate-500">
        Accounts are created by an admin (<code>npm run symtrace -- user add</code>). The demo prints its accounts when it starts.
      </p>
    </div>
  );
}

"use server";

import { redirect } from "next/navigation";
import { headers } from "next/headers";
import { z } from "zod";
import { getAuth } from "@/lib/auth";

const signInSchema = z.object({
  email: z.string().email("Enter an email address."),
  password: z.string().min(1, "Enter your password."),
  next: z.string().optional(),
});

export type SignInState = { error?: string; email?: string };

/** Sign in with email and password (better-auth sets the session cookie via nextCookies). */
export async function signInAction(_prev: SignInState, form: FormData): Promise<SignInState> {
  const parsed = signInSchema.safeParse({ email: form.get("email"), password: form.get("password"), next: form.get("next") ?? undefined });
  if (!parsed.success) return { error: parsed.error.issues[0].message, email: String(form.get("email") ?? "") };
  try {
    await getAuth().api.signInEmail({ body: { email: parsed.data.email, password: parsed.data.password }, headers: await headers() });
  } catch {
    return { error: "Wrong email or password.", email: parsed.data.email };
  }
  const next = parsed.data.next && parsed.data.next.startsWith("/") && !parsed.data.next.startsWith("//") ? parsed.data.next : "/";
  redirect(next);
}

/** Sign out and go to the sign-in page. */
export async function signOutAction(): Promise<void> {
  await getAuth().api.signOut({ headers: await headers() });
  redirect("/sign-in");
}

/** Environment of the app and CLI, validated with zod (fails fast with the variable's name). */
import path from "node:path";
import { z } from "zod";

const envSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^(file:|postgres(ql)?:\/\/)/, "DATABASE_URL must start with file: or postgresql://")
    .optional(),
  /** Where ../shared (samples, fixtures) lives; defaults to ../shared beside the repo. */
  SYMTRACE_SHARED_DIR: z.string().optional(),
});

export type Env = z.infer<typeof envSchema>;

/** Parsed environment. @throws Error naming each bad variable. */
export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const r = envSchema.safeParse(source);
  if (!r.success) {
    throw new Error("bad environment: " + r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  }
  return r.data;
}

/** Absolute path of the shared folder (samples and fixtures). */
export function sharedDir(env: Env = readEnv()): string {
  return path.resolve(env.SYMTRACE_SHARED_DIR ?? path.join(process.cwd(), "../shared"));
}

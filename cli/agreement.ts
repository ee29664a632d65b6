/**
 * `symtrace agreement`: agreement statistics of annotation files (calls lib/agreement; thin).
 *
 *   agreement <annotations.json> [--resamples N] [--seed S]
 *       symtrace.annotations/v1 file -> Table 6 / Table 5 report (lib/agreement analyzeAnnotations)
 *   agreement --mad <MAD.json>
 *       MAST/MAD file -> pooled binary Fleiss' κ over (trace, failure mode) items
 *
 * Returns `{ code, output }` and prints nothing: code 0 with the report, 1 with
 * `{ ok: false, errors: [{ path, message }] }` for unreadable/invalid input, 2 for bad usage.
 * Never throws for bad input and never puts a stack trace in the output.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { analyzeAnnotations, DEFAULT_RESAMPLES, DEFAULT_SEED, pooledBinaryFleiss, readAnnotations } from "../lib/agreement";
import { importMad } from "../lib/importers/mad";

type Result = { code: number; output: unknown };

const USAGE = "usage: symtrace agreement <annotations.json> [--resamples N] [--seed S] | agreement --mad <file>";
const fail = (code: number, message: string, p = "$"): Result => ({ code, output: { ok: false, errors: [{ path: p, message }] } });

function readText(file: string): { text: string } | { error: Result } {
  try {
    return { text: readFileSync(file, "utf8") };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return { error: fail(1, `cannot read ${file}: ${err.code ?? err.message}`) };
  }
}

function intFlag(v: string, name: string, min: number, max: number): number | string {
  if (!/^-?\d+$/.test(v)) return `${name} must be an integer, got ${JSON.stringify(v)}`;
  const n = Number(v);
  if (n < min || n > max) return `${name} must be between ${min} and ${max}, got ${v}`;
  return n;
}

/**
 * Run `agreement` with the arguments after the command name.
 * @param args e.g. `["file.json", "--resamples", "2000", "--seed", "7"]` or `["--mad", "MAD.json"]`
 * @returns code 0 + `{ ok: true, ...AgreementReport }` / `{ ok: true, ...PooledBinaryResult }`;
 *   code 1 + `{ ok: false, errors }` for bad files; code 2 + `{ ok: false, errors }` for bad usage
 */
export async function agreementCommand(args: string[]): Promise<Result> {
  try {
    let resamples = DEFAULT_RESAMPLES;
    let seed = DEFAULT_SEED;
    let mad: string | undefined;
    const positional: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a === "--resamples" || a === "--seed" || a === "--mad") {
        const v = args[++i];
        if (v === undefined || (v.startsWith("--") && a !== "--seed")) return fail(2, `${a} needs a value; ${USAGE}`);
        if (a === "--mad") mad = v;
        else {
          const n = a === "--resamples" ? intFlag(v, a, 1, 1_000_000) : intFlag(v, a, -2147483648, 4294967295);
          if (typeof n === "string") return fail(2, n);
          if (a === "--resamples") resamples = n;
          else seed = n;
        }
      } else if (a.startsWith("--")) return fail(2, `unknown option ${a}; ${USAGE}`);
      else positional.push(a);
    }

    if (mad !== undefined) {
      if (positional.length > 0) return fail(2, `--mad takes one file, got also ${positional.join(" ")}; ${USAGE}`);
      const t = readText(mad);
      if ("error" in t) return t.error;
      const imp = importMad(t.text, { fileName: path.basename(mad) });
      if (imp.cases.length === 0) {
        const errors = imp.failures.flatMap((f) => f.errors.map((e) => ({ path: e.path, message: `${f.where}: ${e.message}` })));
        return { code: 1, output: { ok: false, errors: errors.length > 0 ? errors : [{ path: "$", message: "no MAD records" }] } };
      }
      const r = pooledBinaryFleiss(imp.cases);
      return {
        code: 0,
        output: {
          ok: true,
          file: path.basename(mad),
          traces: imp.cases.length,
          ...r,
          importFailures: imp.failures,
        },
      };
    }

    if (positional.length !== 1) return fail(2, USAGE);
    const file = positional[0];
    const t = readText(file);
    if ("error" in t) return t.error;
    const read = readAnnotations(t.text);
    if (!read.ok) return { code: 1, output: { ok: false, errors: read.errors } };
    const hasThree = read.file.cases.some((c) => c.initial.length === 3);
    if (!hasThree) return fail(1, `${path.basename(file)}: no case has 3 initial annotations, so there is no agreement to compute`, "$.cases");
    return { code: 0, output: { ok: true, file: path.basename(file), ...analyzeAnnotations(read.file.cases, { resamples, seed }) } };
  } catch (e) {
    // Defensive: report, never a stack trace.
    return fail(1, `agreement failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

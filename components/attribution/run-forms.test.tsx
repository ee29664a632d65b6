/**
 * The attribution page's New run and Resume forms (server-rendered markup; the router is a stub)
 * and their helpers: jobs per plan, one-line refusals naming the field.
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, test, vi } from "vitest";
import type { AttributionAppOptions } from "@/lib/services/attribution/app-start";
import { NewAttributionRunForm, plannedJobs } from "./new-run-form";
import { refusalText } from "./post";
import { ResumeAttributionRunForm } from "./resume-run-form";

/** The `<input …/>` tag with this name (and value), attributes in any order. */
function tag(html: string, name: string, value?: string): string {
  const t = (html.match(/<input [^>]*\/>/g) ?? []).find((x) => x.includes(`name="${name}"`) && (value === undefined || x.includes(`value="${value}"`)));
  if (!t) throw new Error(`no input ${name}=${value}`);
  return t;
}

vi.mock("next/navigation", () => ({ useRouter: () => ({ push: () => {}, refresh: () => {} }) }));

const REASON = "needs a model endpoint: no model endpoint is configured on the server";
const options: AttributionAppOptions = {
  attributors: [
    { name: "random", usesLlm: false, groundTruthVariants: false, disabled: null },
    { name: "last", usesLlm: false, groundTruthVariants: false, disabled: null },
    { name: "rules", usesLlm: false, groundTruthVariants: false, disabled: null },
    { name: "all-at-once", usesLlm: true, groundTruthVariants: true, disabled: REASON },
  ],
  endpoint: null,
  endpointProblem: "no model endpoint is configured on the server",
  subsets: [
    { subset: "Hand-Crafted", cases: 58 },
    { subset: "Algorithm-Generated", cases: 126 },
  ],
  datasetDir: "/srv/shared/datasets/who_and_when_full",
  database: { refused: null, subsets: [{ subset: "Hand-Crafted", cases: 6 }] },
  defaultSeed: 20260512,
};

describe("attribution run forms", () => {
  test("jobs per plan: one per case, or one per ground-truth setting and case for the LLM methods with both", () => {
    const withLlm = options.attributors.map((a) => ({ ...a, disabled: null }));
    expect(plannedJobs(withLlm, ["random", "all-at-once"], "both", 10)).toBe(10 + 20);
    expect(plannedJobs(withLlm, ["random", "all-at-once"], "with", 10)).toBe(10 + 10);
    expect(plannedJobs(withLlm, [], "both", 10)).toBe(0);
  });

  test("a refusal is one line naming the field", () => {
    expect(refusalText(400, { error: "invalid request", fieldErrors: [{ field: "maxCalls", message: "a positive number (or null: no cap)" }, { field: "name", message: "1–200 letters, digits, . _ -" }] })).toBe("maxCalls: a positive number (or null: no cap); name: 1–200 letters, digits, . _ -");
    expect(refusalText(409, { error: 'a run named "x" already exists', at: "name" })).toBe('a run named "x" already exists (at name)');
    expect(refusalText(500, { error: "internal error", at: "$" })).toBe("internal error");
    expect(refusalText(502, {})).toBe("HTTP 502");
  });

  test("New run: baselines checked, the LLM attributor disabled with the reason, the shipped subsets with counts, cases and jobs said, no endpoint", () => {
    const html = renderToStaticMarkup(<NewAttributionRunForm options={options} />);
    for (const a of ["random", "last", "rules"]) expect(tag(html, "attributor", a)).toContain('checked=""');
    expect(tag(html, "attributor", "all-at-once")).toContain('disabled=""');
    expect(tag(html, "attributor", "all-at-once")).not.toContain("checked");
    expect(html).toContain('title="needs a model endpoint: no model endpoint is configured on the server"><input');
    expect(html).toContain("disabled: needs a model endpoint");
    expect(html).toContain("none — no model endpoint is configured on the server. The baselines (random, last, rules) run without one.");
    expect(html).toContain("Hand-Crafted <span class=\"text-xs text-slate-500\">(58 cases)</span>");
    expect(html).toContain("Algorithm-Generated <span class=\"text-xs text-slate-500\">(126 cases)</span>");
    expect(html).toContain("184 case(s): 58 Hand-Crafted, 126 Algorithm-Generated — 552 job(s)");
    expect(html).toContain("the dataset shipped with this server (/srv/shared/datasets/who_and_when_full)");
  });

  test("New run with an endpoint: model, URL and protocol shown; every attributor checked", () => {
    const html = renderToStaticMarkup(<NewAttributionRunForm options={{ ...options, endpoint: { upstream: "https://api.example/v1", model: "gpt-4o", protocol: "chat" }, endpointProblem: null, attributors: options.attributors.map((a) => ({ ...a, disabled: null })) }} />);
    expect(html).toContain('<code class="rounded bg-slate-100 px-1">gpt-4o</code> at <code class="rounded bg-slate-100 px-1">https://api.example/v1</code>, protocol chat');
    expect(tag(html, "attributor", "all-at-once")).toContain('checked=""');
    expect(tag(html, "attributor", "all-at-once")).not.toContain("disabled");
    expect(html).toContain("184 case(s): 58 Hand-Crafted, 126 Algorithm-Generated — 920 job(s)"); // 3 × 184 + 2 × 184
  });

  test("Resume: the caps prefilled with twice the old ones (empty: no cap), the spending said", () => {
    const html = renderToStaticMarkup(<ResumeAttributionRunForm name="gpt-4o" budget={{ maxCalls: 10, maxTokens: null }} spent={{ httpCalls: 10, tokens: 5000 }} reason="Stopped at its budget: 7 job(s) not run." />);
    expect(html).toContain("Stopped at its budget: 7 job(s) not run. Spent so far: 10 calls, 5000 tokens.");
    expect(tag(html, "resumeMaxCalls")).toContain('value="20"');
    expect(tag(html, "resumeMaxTokens")).toContain('value=""');
    expect(tag(html, "resumeMaxTokens")).toContain('placeholder="no cap"');
  });
});

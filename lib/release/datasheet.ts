/**
 * The release's README.md: a datasheet filled from the data, in the sections of Gebru et al.,
 * "Datasheets for Datasets" (CACM 2021): motivation, composition, collection process,
 * preprocessing/labelling (with Fleiss' κ from agreement.json), uses, distribution, maintenance.
 * Every number comes from the manifest or the agreement report; nothing is typed in by hand.
 */
import { AGREEMENT_FILE, ANNOTATIONS_FILE, BUNDLES_DIR, SHA256SUMS_FILE, type ReleaseManifest } from "./manifest";

/** One κ with its interval, and why either is missing (lib/agreement VariableAgreement: the dashboard shows the same). */
export interface DatasheetKappa {
  kappa: number | null;
  kappaReason?: string | null;
  ci95: [number, number] | null;
  ciReason?: string | null;
}

/** The agreement figures the datasheet quotes (a subset of lib/agreement's AgreementReport). */
export interface DatasheetAgreement {
  cases: number;
  excluded: ReadonlyArray<{ caseId: string; reason: string }>;
  bootstrap: { resamples: number; seed: number };
  primaryCategory: DatasheetKappa & { unanimous: number };
  categorySet: DatasheetKappa & { unanimous: number };
  nodeType: DatasheetKappa & { unanimous: number };
  presence: Record<string, DatasheetKappa>;
  tuple: { allThree: number; atLeastTwo: number };
  node: { allThree: number; atLeastTwo: number };
}

const esc = (s: string) => s.replace(/\|/g, "\\|");
/** κ, or "undefined (reason)" — the same reason the agreement dashboard shows. */
const kap = (v: DatasheetKappa) => (v.kappa === null ? `undefined${v.kappaReason ? ` (${esc(v.kappaReason)})` : ""}` : v.kappa.toFixed(3));
/** The interval, or "— (why not)": under MIN_CASES_FOR_CI cases the report has none, as on the dashboard. */
const civ = (v: DatasheetKappa) => (v.ci95 ? `[${v.ci95[0].toFixed(3)}, ${v.ci95[1].toFixed(3)}]` : `—${v.ciReason ? ` (${esc(v.ciReason)})` : ""}`);
const table = (rec: Record<string, number>, head: string) =>
  [`| ${head} | cases |`, "|---|---:|", ...Object.entries(rec).map(([k, v]) => `| ${k.replace(/\|/g, "\\|")} | ${v} |`)].join("\n");

/**
 * Render the datasheet.
 * @param m the release manifest (counts, licences, tool, filter)
 * @param a the agreement report, or null when no case has three initial annotations
 * @returns Markdown text (ends with a newline)
 */
export function renderDatasheet(m: ReleaseManifest, a: DatasheetAgreement | null): string {
  const c = m.counts;
  const f = m.filter;
  const filterText =
    [f.mas ? `MAS = ${f.mas}` : "", f.benchmark ? `benchmark = ${f.benchmark}` : "", f.cases ? `${f.cases.length} listed case(s)` : "", f.status === "adjudicated" ? "adjudicated cases only" : "all cases, adjudicated or not"]
      .filter(Boolean)
      .join("; ");
  const kappaRows = a
    ? [
        "| variable | Fleiss' κ | 95% bootstrap CI | 3/3 agree |",
        "|---|---:|---|---:|",
        `| primary category | ${kap(a.primaryCategory)} | ${civ(a.primaryCategory)} | ${a.primaryCategory.unanimous} |`,
        `| exact category set | ${kap(a.categorySet)} | ${civ(a.categorySet)} | ${a.categorySet.unanimous} |`,
        ...Object.entries(a.presence).map(([k, v]) => `| ${k} present | ${kap(v)} | ${civ(v)} | |`),
        `| node type | ${kap(a.nodeType)} | ${civ(a.nodeType)} | ${a.nodeType.unanimous} |`,
      ].join("\n")
    : "";
  const lic = m.licences
    .map((l) => `- **${l.name}** (\`${l.dataset}\`, ${l.cases} case(s)): licence ${l.licence}. Origin: ${l.origin}.${l.attribution ? ` Attribution: ${l.attribution}.` : ""}${l.licenseFile ? ` Licence text: \`${l.licenseFile}\`.` : ""}${l.note ? ` ${l.note}` : ""}`)
    .join("\n");
  const unspecified = m.licences.filter((l) => l.licence === "unspecified");
  return `# ${m.release.name} — version ${m.release.version}

A dataset of multi-agent system traces with failure annotations (categories C1–C4, the responsible node), released by SymTrace Studio ${m.tool.version}${m.tool.gitCommit ? ` (commit ${m.tool.gitCommit})` : ""} on ${m.release.created}. Format \`${m.format}\`; \`manifest.json\` lists every case and file with its SHA-256 (\`${SHA256SUMS_FILE}\` for \`sha256sum -c\`). This datasheet follows Gebru et al., "Datasheets for Datasets"; its figures are computed from the released data.

## Motivation
- **Purpose.** Failure attribution in LLM multi-agent systems: which node of an execution's event-dependency graph is where the run went wrong, and in which failure category (C1–C4 of the SymFail protocol, seeds/000). The traces are replay bundles, so a diagnosis can be tested by replaying from the blamed node.
- **Created by** the team running this SymTrace Studio instance; annotators appear under pseudonyms only.

## Composition
- **Instances:** ${c.cases} case(s), each one replay bundle (task, configuration, event-dependency graph, observed order, LLM/tool boundary records) in \`${BUNDLES_DIR}/\`; ${c.adjudicated} adjudicated.
- **Selection:** ${filterText}.
- **Annotations:** ${c.initialAnnotations} initial (blind) annotation(s) by ${c.annotators} annotator(s) and ${c.finalAnnotations} final (adjudicated) annotation(s) by ${c.adjudicators} adjudicator(s), with rationales and quoted evidence, in \`${ANNOTATIONS_FILE}\` (\`symtrace.annotations/v1\`).

${table(c.byMas, "MAS")}

${table(c.byBenchmark, "benchmark")}

${table(c.bySourceDataset, "source dataset")}

${table(c.byPrimaryCategory, "final primary category")}

- **Missing information:** cases without a final annotation count under "(none)"; reference labels published with a source dataset travel inside its bundles (\`referenceLabels\`) and are not our annotators' work.
- **Sensitive data:** traces are model and tool transcripts as recorded or published; they may contain web content, file paths and public keys quoted by the agents. Annotator identities are replaced by pseudonyms (${m.pseudonymisation.scheme}, ${m.pseudonymisation.people} person(s)); emails and names of accounts inside rationales are replaced by the pseudonym (other free text about people is released as written).

## Collection process
- Traces were imported from the source datasets below or recorded with \`symtrace record\` (an OpenAI-compatible proxy and a tool gateway capture every boundary). Each bundle is stored and released in canonical form; its identity is sha256 of its RFC 8785 canonical JSON (\`bundleHash\` in the manifest).

## Preprocessing, cleaning and labelling
- Three annotators label each case independently and blind to one another (category set, primary category, responsible node and its type, confidence, rationale, evidence quotes); an adjudicator who did not annotate the case then writes the final annotation.
${
  a
    ? `- **Agreement** over ${a.cases} case(s) with three initial annotations${a.excluded.length ? ` (${a.excluded.length} case(s) left out: not exactly three)` : ""}; percentile bootstrap over cases, ${a.bootstrap.resamples} resamples, seed ${a.bootstrap.seed} (full report in \`${AGREEMENT_FILE}\`; \`symtrace agreement ${ANNOTATIONS_FILE}\` recomputes it):

${kappaRows}

- Responsible node: all three agree on ${a.node.allThree}/${a.cases}, at least two on ${a.node.atLeastTwo}/${a.cases}; strict tuple (set, primary, node, node type): ${a.tuple.allThree}/${a.cases} and ${a.tuple.atLeastTwo}/${a.cases}.`
    : "- **Agreement:** no released case has three initial annotations, so no agreement figures are reported."
}

## Uses
- Benchmarking failure-attribution methods (node and category), studying annotator agreement, replay-based validation of diagnoses, and training diagnosis models with the caveats below.
- **Not for:** judging the quality of the named MAS frameworks or models in general (the cases are a selection of failures, not a sample of runs).

## Distribution
${lic || "- (no cases)"}
${unspecified.length ? `\n**Before publishing:** the licence of ${unspecified.map((l) => `\`${l.dataset}\``).join(", ")} is not known to the tool; state it here.\n` : ""}
- The annotations, rationales and agreement figures are the releasing team's work; state their licence here.

## Maintenance
- Reload with \`npm run symtrace -- release import <folder>\` into an empty SymTrace Studio database: it verifies every checksum, then that the stored bundle hashes and the recomputed agreement figures equal this release's.
- Errata and new versions get a new release version; the manifest's \`release.version\` and per-file SHA-256 identify exactly what was used.
`;
}

/**
 * The `symtrace` CLI (the process; the commands are cli/main.ts): `npm run symtrace -- <command>`. Prints JSON on stdout; exit 0 on success,
 * 1 on invalid input or failure (with a JSON error, never a stack trace), 2 on bad usage.
 *
 *   validate <file>
 *   import <file-or-directory>... [--format auto|bundle|whowhen|mad|otel]
 *   export <caseId|bundleId|--all> --out <dir>
 *   user add <email> --role <role>[,<role>...] [--password <pw>] [--name <name>]
 *   user list
 *   annotations import <file>
 *   annotations export --out <file> [--case <bundleId>] [--submitted-only]
 *   detect <bundle-file|caseId|bundleId> [--judge]   (cli/detect.ts)
 *   detect --eval [--dataset D] [--dir <file-or-dir>...] [--seed S]
 *   apikey create --name <n> | apikey list | apikey revoke <id|prefix>   (cli/otlp.ts)
 *   otlp flush [--trace <traceId>] | otlp status | otlp prune [--retain-seconds <s>]
 *   experiment run ... | experiment report <id|dir>   (cli/experiment.ts; exit 3: stopped at the budget cap)
 *   repair-search <bundle> --upstream <url> ... --out <dir> [-- <command...>]   (cli/repair-search.ts: MARS search-based repair)
 *   repair-search start --case <id> ... [-- <command...>] | repair-search show <id>   (cli/repair-search-jobs.ts: as a job)
 *   release export --out <dir> [--format bundle|...] [filters]   (cli/release.ts)
 *   release import <dir>
 *
 * Exit codes: 0 ok; 1 invalid input or any failed file/record (import still stores the good
 * ones); 2 bad usage.
 * The database is DATABASE_URL or the embedded SQLite file (data/symtrace.db); pending
 * migrations are applied before a database command (none pending: the schema engine is not
 * started, so the CLI runs beside the app). A SQLite file locked by another process for longer
 * than SYMTRACE_DB_BUSY_TIMEOUT_MS (default 10000) gives exit 1 and one line saying so.
 */
import { runSymtrace } from "./main";

runSymtrace(process.argv.slice(2)).then((code) => process.exit(code));

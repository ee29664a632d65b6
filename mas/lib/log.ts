/** Progress lines go to stderr; stdout carries only the final `{"final": ...}` JSON line. */
export function log(agent: string, message: string): void {
  if (process.env.SYMTRACE_QUIET === "1") return;
  process.stderr.write(`[${agent}] ${message.length > 300 ? `${message.slice(0, 300)}…` : message}\n`);
}

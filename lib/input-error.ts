/** What kind of input problem an entry point reports (routes map it to 404 / 400 / 409). */
export type InputErrorCode = "not-found" | "invalid" | "conflict";

/**
 * A refused input of a create/start entry point (experiments, repair searches): a code and where
 * the bad input is. Subclasses only name themselves, so callers can tell the feature apart.
 */
export class InputError extends Error {
  constructor(
    readonly code: InputErrorCode,
    message: string,
    /** Where the bad input is (JSON path or CLI flag), when known. */
    readonly at: string = "$",
  ) {
    super(message);
  }
}

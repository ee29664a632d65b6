/** Release export (issue 14 item 1): work in progress — see cli/release.ts. */
import type { ReleaseFormatExporter } from "./release-select";

/** `release export --format bundle`: not written yet (this commit only fixes the CLI's extension point). */
export const bundleReleaseFormat: ReleaseFormatExporter = async () => ({ code: 1, output: { ok: false, errors: [{ path: "$", message: "release export --format bundle is not implemented yet" }] } });

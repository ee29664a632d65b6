/**
 * lib/release (pure): the parts of a dataset release (issue 14 item 1) that need no database:
 * manifest shape and counts, datasheet, licences per source dataset, pseudonyms, checksums.
 * The database side is lib/services/release-export.ts / release-import.ts.
 */
export * from "./manifest";
export { renderDatasheet, type DatasheetAgreement, type DatasheetKappa } from "./datasheet";
export { licenceOf, LICENSE_FILES, LANGFUSE_SAMPLE_FILES, type DatasetLicence } from "./licences";
export { pseudonymMap, randomPseudonymKey, scrubIdentities, PSEUDONYM_PREFIX, type Identity } from "./pseudonym";
export { sha256Hex, sha256sumsText, verifyChecksums, type ChecksumProblem, type FileChecksum } from "./checksums";

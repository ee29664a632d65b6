/** lib/annotation: the SymFail annotation protocol (pure; no React, Next.js or database). */
export * from "./protocol";
export * from "./validate";
export * from "./evidence";
export * from "./relation";
export * from "./visibility";
export * from "./guidance";

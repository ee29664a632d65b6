import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const PURE = ["lib/bundle/**", "lib/stats/**", "lib/annotation/**", "lib/otlp/**", "lib/release/**", "lib/importers/**", "lib/replay/**", "lib/agreement/**", "lib/symptoms/**", "lib/experiments/**", "lib/layout/**", "lib/media/**", "lib/repair-search/**", "lib/attribution/**"];

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: ["node_modules/**", ".next/**", ".next-*/**", ".test-reports/**", "data/**", "lib/generated/**", "next-env.d.ts", "test-results/**", "playwright-report/**", "e2e-artifacts/**"],
  },
  {
    rules: {
      // Trace content is untrusted: never render it as HTML.
      "react/no-danger": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // Pure cores stay framework-free (house style: module boundaries).
    files: PURE,
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["react", "react-dom", "next", "next/*", "@prisma/*", "**/generated/**", "**/lib/db", "**/lib/db/**", "../db", "../db/*", "@/lib/db*", "@/components/*", "**/components/**"], message: "pure modules import no React, Next.js, Prisma, lib/db or components" },
            { group: ["**/lib/services", "**/lib/services/**", "../services", "../services/*", "../../services/*", "@/lib/services*", "**/lib/jobs", "**/lib/jobs/**", "../jobs", "../jobs/*", "../../jobs/*", "@/lib/jobs*", "**/lib/auth", "**/lib/session", "../auth", "../session", "@/lib/auth", "@/lib/session", "@/app/*", "**/app/**"], message: "pure modules are below the server layers: no lib/services, lib/jobs, auth/session or app" },
          ],
        },
      ],
    },
  },
  {
    // lib/db is below the services and the views: it maps rows to lib/bundle types and nothing above it.
    files: ["lib/db/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["**/lib/services", "**/lib/services/**", "../services", "../services/*", "@/lib/services*", "@/components/*", "**/components/**", "react", "react-dom", "next", "next/*", "@/app/*", "**/app/**"], message: "lib/db imports no services, components, React, Next.js or routes" },
          ],
        },
      ],
    },
  },
  {
    // Only server code reaches the database.
    files: ["components/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@/lib/db", "@/lib/db/*", "**/lib/db", "**/lib/db/*", "@prisma/*"], message: "components receive props or call server actions; only server files import lib/db" },
          ],
        },
      ],
    },
  },
  {
    // ...and take values from pure cores or props, not from services (server code); types only
    // (erased at build) may come from services. Tests of components may drive services.
    files: ["components/**"],
    ignores: ["components/**/*.test.tsx", "components/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@/lib/db", "@/lib/db/*", "**/lib/db", "**/lib/db/*", "@prisma/*"], message: "components receive props or call server actions; only server files import lib/db" },
            { group: ["@/lib/services/*", "**/lib/services/*", "@/lib/jobs", "@/lib/jobs/*", "**/lib/jobs", "**/lib/jobs/*"], allowTypeImports: true, message: "components call pure cores or receive props; services and jobs are server code" },
          ],
        },
      ],
    },
  },
];

export default config;

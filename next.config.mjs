/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // NEXT_DIST_DIR lets the benchmark and e2e build beside a developer's own .next.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // Native / driver packages stay outside the server bundle.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "pg", "@prisma/client", "pg-boss"],
  poweredByHeader: false,
  typedRoutes: false,
};
export default nextConfig;

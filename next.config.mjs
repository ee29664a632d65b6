/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // Native / driver packages stay outside the server bundle.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "pg", "@prisma/client"],
  poweredByHeader: false,
  typedRoutes: false,
};
export default nextConfig;

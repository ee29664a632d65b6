import { SchemaEngine } from "@prisma/schema-engine-wasm";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { readFileSync } from "node:fs";
const schema = readFileSync("prisma/schema.prisma","utf8");
const factory = bindMigrationAwareSqlAdapterFactory(new PrismaBetterSqlite3({ url: "file:/tmp/t.db" }));
const engine = await SchemaEngine.new({ datamodels: [["schema.prisma", schema]] }, (...a) => console.error("log", ...a), factory);
const res = await engine.diff({ from: { tag: "empty" }, to: { tag: "schemaDatamodel", files: [{ path: "schema.prisma", content: schema }] }, script: true, shadowDatabaseUrl: null, exitCode: null, filters: { externalTables: [], externalEnums: [] } });
console.log(JSON.stringify(res).slice(0, 400));

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "scopes" TEXT NOT NULL DEFAULT 'traces:write',
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME
);

-- CreateTable
CREATE TABLE "OtlpBatch" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "body" BLOB NOT NULL,
    "receivedMs" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "OtlpSpan" (
    "traceId" TEXT NOT NULL,
    "spanId" TEXT NOT NULL,
    "batchId" TEXT NOT NULL,
    "receivedMs" BIGINT NOT NULL,

    PRIMARY KEY ("traceId", "spanId")
);

-- CreateTable
CREATE TABLE "OtlpTrace" (
    "traceId" TEXT NOT NULL PRIMARY KEY,
    "firstReceivedMs" BIGINT NOT NULL,
    "lastReceivedMs" BIGINT NOT NULL,
    "pending" BOOLEAN NOT NULL DEFAULT true,
    "claimedUntilMs" BIGINT,
    "assembledMs" BIGINT,
    "assembledSpans" INTEGER,
    "error" TEXT
);

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_keyHash_key" ON "ApiKey"("keyHash");

-- CreateIndex
CREATE INDEX "OtlpSpan_batchId_idx" ON "OtlpSpan"("batchId");

-- CreateIndex
CREATE INDEX "OtlpTrace_pending_lastReceivedMs_idx" ON "OtlpTrace"("pending", "lastReceivedMs");

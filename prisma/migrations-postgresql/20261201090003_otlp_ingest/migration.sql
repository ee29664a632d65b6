-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "scopes" TEXT NOT NULL DEFAULT 'traces:write',
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OtlpBatch" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "body" BYTEA NOT NULL,
    "receivedMs" BIGINT NOT NULL,

    CONSTRAINT "OtlpBatch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OtlpSpan" (
    "traceId" TEXT NOT NULL,
    "spanId" TEXT NOT NULL,
    "batchId" TEXT NOT NULL,
    "receivedMs" BIGINT NOT NULL,

    CONSTRAINT "OtlpSpan_pkey" PRIMARY KEY ("traceId","spanId")
);

-- CreateTable
CREATE TABLE "OtlpTrace" (
    "traceId" TEXT NOT NULL,
    "firstReceivedMs" BIGINT NOT NULL,
    "lastReceivedMs" BIGINT NOT NULL,
    "pending" BOOLEAN NOT NULL DEFAULT true,
    "claimedUntilMs" BIGINT,
    "assembledMs" BIGINT,
    "assembledSpans" INTEGER,
    "error" TEXT,

    CONSTRAINT "OtlpTrace_pkey" PRIMARY KEY ("traceId")
);

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_keyHash_key" ON "ApiKey"("keyHash");

-- CreateIndex
CREATE INDEX "OtlpSpan_batchId_idx" ON "OtlpSpan"("batchId");

-- CreateIndex
CREATE INDEX "OtlpTrace_pending_lastReceivedMs_idx" ON "OtlpTrace"("pending", "lastReceivedMs");

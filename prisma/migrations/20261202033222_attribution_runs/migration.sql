-- CreateTable
CREATE TABLE "AttributionRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "planJson" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "maxCalls" INTEGER,
    "maxTokens" INTEGER,
    "spentCalls" INTEGER NOT NULL DEFAULT 0,
    "spentTokens" INTEGER NOT NULL DEFAULT 0,
    "runner" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "AttributionRunCase" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "caseId" TEXT NOT NULL,
    "subset" TEXT NOT NULL,
    "referenceJson" TEXT NOT NULL,
    "bundleJson" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    CONSTRAINT "AttributionRunCase_runId_fkey" FOREIGN KEY ("runId") REFERENCES "AttributionRun" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AttributionJob" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "runCaseId" TEXT NOT NULL,
    "attributor" TEXT NOT NULL,
    "groundTruth" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "resultJson" TEXT,
    "error" TEXT,
    "httpCalls" INTEGER NOT NULL DEFAULT 0,
    "tokens" INTEGER NOT NULL DEFAULT 0,
    "workerId" TEXT,
    "leaseUntil" DATETIME,
    "claims" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    CONSTRAINT "AttributionJob_runId_fkey" FOREIGN KEY ("runId") REFERENCES "AttributionRun" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "AttributionJob_runCaseId_fkey" FOREIGN KEY ("runCaseId") REFERENCES "AttributionRunCase" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "AttributionRun_name_key" ON "AttributionRun"("name");

-- CreateIndex
CREATE UNIQUE INDEX "AttributionRunCase_runId_caseId_key" ON "AttributionRunCase"("runId", "caseId");

-- CreateIndex
CREATE INDEX "AttributionJob_runId_status_idx" ON "AttributionJob"("runId", "status");

-- CreateIndex
CREATE INDEX "AttributionJob_status_createdAt_idx" ON "AttributionJob"("status", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "AttributionJob_runId_attributor_groundTruth_runCaseId_key" ON "AttributionJob"("runId", "attributor", "groundTruth", "runCaseId");

-- CreateTable
CREATE TABLE "RepairSearch" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "sourceCaseId" TEXT NOT NULL,
    "settingsJson" TEXT NOT NULL,
    "stateJson" TEXT,
    "nodeCasesJson" TEXT NOT NULL DEFAULT '{}',
    "bestNodeId" TEXT,
    "passed" BOOLEAN,
    "evaluationJson" TEXT,
    "workerId" TEXT,
    "leaseUntil" DATETIME,
    "claims" INTEGER NOT NULL DEFAULT 0,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "error" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    CONSTRAINT "RepairSearch_sourceCaseId_fkey" FOREIGN KEY ("sourceCaseId") REFERENCES "Case" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "RepairSearch_sourceCaseId_createdAt_idx" ON "RepairSearch"("sourceCaseId", "createdAt");

-- CreateIndex
CREATE INDEX "RepairSearch_status_createdAt_idx" ON "RepairSearch"("status", "createdAt");

-- CreateTable
CREATE TABLE "RepairSearch" (
    "id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "sourceCaseId" TEXT NOT NULL,
    "settingsJson" TEXT NOT NULL,
    "stateJson" TEXT,
    "nodeCasesJson" TEXT NOT NULL DEFAULT '{}',
    "bestNodeId" TEXT,
    "passed" BOOLEAN,
    "evaluationJson" TEXT,
    "workerId" TEXT,
    "leaseUntil" TIMESTAMP(3),
    "claims" INTEGER NOT NULL DEFAULT 0,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "error" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "RepairSearch_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RepairSearch_sourceCaseId_createdAt_idx" ON "RepairSearch"("sourceCaseId", "createdAt");

-- CreateIndex
CREATE INDEX "RepairSearch_status_createdAt_idx" ON "RepairSearch"("status", "createdAt");

-- AddForeignKey
ALTER TABLE "RepairSearch" ADD CONSTRAINT "RepairSearch_sourceCaseId_fkey" FOREIGN KEY ("sourceCaseId") REFERENCES "Case"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "Experiment" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL DEFAULT 'queued',
    "settingsJson" TEXT NOT NULL,
    "caseSetJson" TEXT NOT NULL,
    "methodsJson" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "seed" INTEGER NOT NULL,
    "maxCalls" INTEGER,
    "maxTokens" INTEGER,
    "stopReason" TEXT,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "reportJson" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Experiment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ExperimentCase" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "idx" INTEGER NOT NULL,
    "caseId" TEXT,
    "bundleId" TEXT NOT NULL,
    "mas" TEXT NOT NULL,
    "benchmark" TEXT,
    "task" TEXT NOT NULL,
    "primaryCategory" TEXT,
    "referenceJson" TEXT,

    CONSTRAINT "ExperimentCase_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ExperimentAttempt" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "experimentCaseId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "passed" BOOLEAN,
    "reproduced" BOOLEAN,
    "anchorNodeId" TEXT,
    "guidance" TEXT,
    "bundleId" TEXT,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "auxCalls" INTEGER NOT NULL DEFAULT 0,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "tokens" INTEGER NOT NULL DEFAULT 0,
    "masMs" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "skipReason" TEXT,
    "judgeReason" TEXT,
    "finalJson" TEXT,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "claims" INTEGER NOT NULL DEFAULT 0,
    "progressJson" TEXT NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "ExperimentAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Experiment_status_createdAt_idx" ON "Experiment"("status", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ExperimentCase_experimentId_bundleId_key" ON "ExperimentCase"("experimentId", "bundleId");

-- CreateIndex
CREATE UNIQUE INDEX "ExperimentCase_experimentId_idx_key" ON "ExperimentCase"("experimentId", "idx");

-- CreateIndex
CREATE INDEX "ExperimentAttempt_experimentId_status_idx" ON "ExperimentAttempt"("experimentId", "status");

-- CreateIndex
CREATE INDEX "ExperimentAttempt_status_createdAt_idx" ON "ExperimentAttempt"("status", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ExperimentAttempt_experimentId_experimentCaseId_method_atte_key" ON "ExperimentAttempt"("experimentId", "experimentCaseId", "method", "attempt");

-- AddForeignKey
ALTER TABLE "Experiment" ADD CONSTRAINT "Experiment_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExperimentCase" ADD CONSTRAINT "ExperimentCase_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExperimentAttempt" ADD CONSTRAINT "ExperimentAttempt_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExperimentAttempt" ADD CONSTRAINT "ExperimentAttempt_experimentCaseId_fkey" FOREIGN KEY ("experimentCaseId") REFERENCES "ExperimentCase"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ExperimentAttempt" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "auxTokens" INTEGER NOT NULL DEFAULT 0,
    "masMs" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "skipReason" TEXT,
    "judgeReason" TEXT,
    "finalJson" TEXT,
    "artifactJson" TEXT,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "claims" INTEGER NOT NULL DEFAULT 0,
    "progressJson" TEXT NOT NULL DEFAULT '{}',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    CONSTRAINT "ExperimentAttempt_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ExperimentAttempt_experimentCaseId_fkey" FOREIGN KEY ("experimentCaseId") REFERENCES "ExperimentCase" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_ExperimentAttempt" ("anchorNodeId", "attempt", "auxCalls", "bundleId", "calls", "claims", "completionTokens", "createdAt", "error", "experimentCaseId", "experimentId", "finalJson", "finishedAt", "guidance", "id", "judgeReason", "leaseExpiresAt", "leaseOwner", "masMs", "method", "passed", "progressJson", "promptTokens", "reproduced", "skipReason", "startedAt", "status", "tokens") SELECT "anchorNodeId", "attempt", "auxCalls", "bundleId", "calls", "claims", "completionTokens", "createdAt", "error", "experimentCaseId", "experimentId", "finalJson", "finishedAt", "guidance", "id", "judgeReason", "leaseExpiresAt", "leaseOwner", "masMs", "method", "passed", "progressJson", "promptTokens", "reproduced", "skipReason", "startedAt", "status", "tokens" FROM "ExperimentAttempt";
DROP TABLE "ExperimentAttempt";
ALTER TABLE "new_ExperimentAttempt" RENAME TO "ExperimentAttempt";
CREATE INDEX "ExperimentAttempt_experimentId_status_idx" ON "ExperimentAttempt"("experimentId", "status");
CREATE INDEX "ExperimentAttempt_status_createdAt_idx" ON "ExperimentAttempt"("status", "createdAt");
CREATE UNIQUE INDEX "ExperimentAttempt_experimentId_experimentCaseId_method_attempt_key" ON "ExperimentAttempt"("experimentId", "experimentCaseId", "method", "attempt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

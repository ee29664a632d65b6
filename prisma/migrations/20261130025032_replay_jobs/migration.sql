-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ReplayRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sourceCaseId" TEXT NOT NULL,
    "targetNodeId" TEXT NOT NULL,
    "guidance" TEXT NOT NULL DEFAULT '',
    "mode" TEXT,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "endpointJson" TEXT NOT NULL DEFAULT '{}',
    "groupId" TEXT,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "retryOfId" TEXT,
    "progressJson" TEXT NOT NULL DEFAULT '{}',
    "workerId" TEXT,
    "heartbeatAt" DATETIME,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "boundaryNodeId" TEXT,
    "divergenceJson" TEXT,
    "errorJson" TEXT,
    "resultJson" TEXT,
    "logJson" TEXT NOT NULL DEFAULT '[]',
    "resultCaseId" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    CONSTRAINT "ReplayRun_sourceCaseId_fkey" FOREIGN KEY ("sourceCaseId") REFERENCES "Case" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ReplayRun_resultCaseId_fkey" FOREIGN KEY ("resultCaseId") REFERENCES "Case" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "ReplayRun_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "user" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_ReplayRun" ("createdAt", "createdById", "divergenceJson", "endpointJson", "errorJson", "finishedAt", "guidance", "id", "logJson", "mode", "resultCaseId", "sourceCaseId", "startedAt", "status", "targetNodeId") SELECT "createdAt", "createdById", "divergenceJson", "endpointJson", "errorJson", "finishedAt", "guidance", "id", "logJson", "mode", "resultCaseId", "sourceCaseId", "startedAt", "status", "targetNodeId" FROM "ReplayRun";
DROP TABLE "ReplayRun";
ALTER TABLE "new_ReplayRun" RENAME TO "ReplayRun";
CREATE INDEX "ReplayRun_sourceCaseId_createdAt_idx" ON "ReplayRun"("sourceCaseId", "createdAt");
CREATE INDEX "ReplayRun_status_createdAt_idx" ON "ReplayRun"("status", "createdAt");
CREATE INDEX "ReplayRun_groupId_idx" ON "ReplayRun"("groupId");
CREATE INDEX "ReplayRun_resultCaseId_idx" ON "ReplayRun"("resultCaseId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

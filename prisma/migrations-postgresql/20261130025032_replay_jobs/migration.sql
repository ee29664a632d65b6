-- DropIndex
DROP INDEX "ReplayRun_status_idx";

-- AlterTable
ALTER TABLE "ReplayRun" ADD COLUMN     "attempt" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "boundaryNodeId" TEXT,
ADD COLUMN     "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "groupId" TEXT,
ADD COLUMN     "heartbeatAt" TIMESTAMP(3),
ADD COLUMN     "progressJson" TEXT NOT NULL DEFAULT '{}',
ADD COLUMN     "resultJson" TEXT,
ADD COLUMN     "retryOfId" TEXT,
ADD COLUMN     "workerId" TEXT,
ALTER COLUMN "mode" DROP NOT NULL,
ALTER COLUMN "mode" DROP DEFAULT;

-- CreateIndex
CREATE INDEX "ReplayRun_status_createdAt_idx" ON "ReplayRun"("status", "createdAt");

-- CreateIndex
CREATE INDEX "ReplayRun_groupId_idx" ON "ReplayRun"("groupId");

-- CreateIndex
CREATE INDEX "ReplayRun_resultCaseId_idx" ON "ReplayRun"("resultCaseId");

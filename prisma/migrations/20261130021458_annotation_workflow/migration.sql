-- AlterTable
ALTER TABLE "Case" ADD COLUMN "finalAnnotationId" TEXT;
ALTER TABLE "Case" ADD COLUMN "finalizedAt" DATETIME;
ALTER TABLE "Case" ADD COLUMN "finalizedById" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Annotation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "caseId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'draft',
    "categories" TEXT NOT NULL DEFAULT '',
    "primary" TEXT,
    "nodeId" TEXT,
    "nodeType" TEXT,
    "confidence" TEXT,
    "rationale" TEXT NOT NULL DEFAULT '',
    "version" INTEGER NOT NULL DEFAULT 0,
    "relationJson" TEXT,
    "reopenedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "submittedAt" DATETIME,
    CONSTRAINT "Annotation_caseId_fkey" FOREIGN KEY ("caseId") REFERENCES "Case" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Annotation_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Annotation" ("caseId", "categories", "confidence", "createdAt", "id", "kind", "nodeId", "nodeType", "primary", "rationale", "status", "submittedAt", "updatedAt", "userId") SELECT "caseId", "categories", "confidence", "createdAt", "id", "kind", "nodeId", "nodeType", "primary", "rationale", "status", "submittedAt", "updatedAt", "userId" FROM "Annotation";
DROP TABLE "Annotation";
ALTER TABLE "new_Annotation" RENAME TO "Annotation";
CREATE INDEX "Annotation_caseId_kind_status_idx" ON "Annotation"("caseId", "kind", "status");
CREATE UNIQUE INDEX "Annotation_caseId_userId_kind_key" ON "Annotation"("caseId", "userId", "kind");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "Case_finalAnnotationId_key" ON "Case"("finalAnnotationId");

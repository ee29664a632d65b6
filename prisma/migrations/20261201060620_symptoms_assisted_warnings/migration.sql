-- AlterTable
ALTER TABLE "Annotation" ADD COLUMN "assisted" BOOLEAN;
ALTER TABLE "Annotation" ADD COLUMN "warningsShownJson" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Assignment" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "caseId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'assigned',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "submittedAt" DATETIME,
    "assisted" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "Assignment_caseId_fkey" FOREIGN KEY ("caseId") REFERENCES "Case" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Assignment_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Assignment" ("caseId", "createdAt", "id", "role", "status", "submittedAt", "userId") SELECT "caseId", "createdAt", "id", "role", "status", "submittedAt", "userId" FROM "Assignment";
DROP TABLE "Assignment";
ALTER TABLE "new_Assignment" RENAME TO "Assignment";
CREATE INDEX "Assignment_userId_status_idx" ON "Assignment"("userId", "status");
CREATE UNIQUE INDEX "Assignment_caseId_userId_role_key" ON "Assignment"("caseId", "userId", "role");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- AlterTable
ALTER TABLE "ExperimentAttempt" ADD COLUMN     "artifactJson" TEXT,
ADD COLUMN     "auxTokens" INTEGER NOT NULL DEFAULT 0;

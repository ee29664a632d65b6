-- AlterTable
ALTER TABLE "user" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'human';

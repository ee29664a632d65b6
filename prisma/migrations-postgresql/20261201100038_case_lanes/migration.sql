-- AlterTable
ALTER TABLE "Case" ADD COLUMN     "lanesJson" TEXT;

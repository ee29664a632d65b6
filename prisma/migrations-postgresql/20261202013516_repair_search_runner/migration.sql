-- AlterTable
ALTER TABLE "RepairSearch" ADD COLUMN     "runner" TEXT;

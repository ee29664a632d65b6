-- AlterTable
ALTER TABLE "Experiment" ADD COLUMN "runner" TEXT;

-- AlterTable
ALTER TABLE "OtlpTrace" ADD COLUMN "prunedMs" BIGINT;
ALTER TABLE "OtlpTrace" ADD COLUMN "prunedSpans" INTEGER;

-- AlterTable
ALTER TABLE "OtlpTrace" ADD COLUMN     "prunedMs" BIGINT,
ADD COLUMN     "prunedSpans" INTEGER;

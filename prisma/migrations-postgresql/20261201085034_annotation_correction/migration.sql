-- AlterTable
ALTER TABLE "Annotation" ADD COLUMN     "correction" TEXT;

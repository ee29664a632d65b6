-- AlterTable
ALTER TABLE "Assignment" ADD COLUMN     "assisted" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Annotation" ADD COLUMN     "assisted" BOOLEAN,
ADD COLUMN     "warningsShownJson" TEXT;

-- AlterTable
ALTER TABLE "Case" ADD COLUMN     "finalAnnotationId" TEXT,
ADD COLUMN     "finalizedAt" TIMESTAMP(3),
ADD COLUMN     "finalizedById" TEXT;

-- AlterTable
ALTER TABLE "Annotation" ADD COLUMN     "relationJson" TEXT,
ADD COLUMN     "reopenedAt" TIMESTAMP(3),
ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE UNIQUE INDEX "Case_finalAnnotationId_key" ON "Case"("finalAnnotationId");

-- CreateTable
CREATE TABLE "Case" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "bundleId" TEXT NOT NULL,
    "format" TEXT NOT NULL DEFAULT 'symtrace.bundle/v1',
    "bundleHash" TEXT NOT NULL,
    "headerJson" TEXT NOT NULL,
    "parentBundleId" TEXT,
    "sourceDataset" TEXT NOT NULL,
    "sourceFile" TEXT,
    "sourceSubset" TEXT,
    "traceSha256" TEXT,
    "taskId" TEXT,
    "taskPrompt" TEXT NOT NULL,
    "benchmark" TEXT,
    "mas" TEXT,
    "model" TEXT,
    "outcomePassed" BOOLEAN,
    "nodeCount" INTEGER NOT NULL,
    "edgeCount" INTEGER NOT NULL,
    "recordCount" INTEGER NOT NULL,
    "agentCount" INTEGER NOT NULL DEFAULT 0,
    "importedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Node" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "caseId" TEXT NOT NULL,
    "nodeId" TEXT NOT NULL,
    "idx" INTEGER NOT NULL,
    "orderIndex" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "agent" TEXT,
    "label" TEXT,
    "status" TEXT,
    "errorJson" TEXT,
    "contentJson" TEXT NOT NULL,
    "contentHash" TEXT NOT NULL,
    "extraJson" TEXT,
    CONSTRAINT "Node_caseId_fkey" FOREIGN KEY ("caseId") REFERENCES "Case" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Edge" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "caseId" TEXT NOT NULL,
    "idx" INTEGER NOT NULL,
    "fromNodeId" TEXT NOT NULL,
    "toNodeId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "extraJson" TEXT,
    CONSTRAINT "Edge_caseId_fkey" FOREIGN KEY ("caseId") REFERENCES "Case" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "BoundaryRecord" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "caseId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "nodeId" TEXT NOT NULL,
    "boundary" TEXT NOT NULL,
    "requestJson" TEXT NOT NULL,
    "requestHash" TEXT NOT NULL,
    "responseJson" TEXT NOT NULL,
    "metaJson" TEXT,
    "extraJson" TEXT,
    CONSTRAINT "BoundaryRecord_caseId_fkey" FOREIGN KEY ("caseId") REFERENCES "Case" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ReferenceLabel" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "caseId" TEXT NOT NULL,
    "idx" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "annotator" TEXT NOT NULL,
    "nodeId" TEXT,
    "agent" TEXT,
    "reason" TEXT,
    "failureModesJson" TEXT NOT NULL DEFAULT '[]',
    "extraJson" TEXT NOT NULL DEFAULT '{}',
    CONSTRAINT "ReferenceLabel_caseId_fkey" FOREIGN KEY ("caseId") REFERENCES "Case" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "user" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "emailVerified" BOOLEAN NOT NULL DEFAULT false,
    "image" TEXT,
    "roles" TEXT NOT NULL DEFAULT 'researcher',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "expiresAt" DATETIME NOT NULL,
    "token" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "ipAddress" TEXT,
    "userAgent" TEXT,
    "userId" TEXT NOT NULL,
    CONSTRAINT "session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "account" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "accountId" TEXT NOT NULL,
    "providerId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "accessToken" TEXT,
    "refreshToken" TEXT,
    "idToken" TEXT,
    "accessTokenExpiresAt" DATETIME,
    "refreshTokenExpiresAt" DATETIME,
    "scope" TEXT,
    "password" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "account_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "verification" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "identifier" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Assignment" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "caseId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'assigned',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "submittedAt" DATETIME,
    CONSTRAINT "Assignment_caseId_fkey" FOREIGN KEY ("caseId") REFERENCES "Case" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Assignment_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Annotation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "caseId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'draft',
    "categories" TEXT NOT NULL DEFAULT '',
    "primary" TEXT,
    "nodeId" TEXT,
    "nodeType" TEXT,
    "confidence" TEXT,
    "rationale" TEXT NOT NULL DEFAULT '',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "submittedAt" DATETIME,
    CONSTRAINT "Annotation_caseId_fkey" FOREIGN KEY ("caseId") REFERENCES "Case" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Annotation_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Evidence" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "annotationId" TEXT NOT NULL,
    "idx" INTEGER NOT NULL,
    "nodeId" TEXT NOT NULL,
    "quote" TEXT NOT NULL,
    CONSTRAINT "Evidence_annotationId_fkey" FOREIGN KEY ("annotationId") REFERENCES "Annotation" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ReplayRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sourceCaseId" TEXT NOT NULL,
    "targetNodeId" TEXT NOT NULL,
    "guidance" TEXT NOT NULL DEFAULT '',
    "mode" TEXT NOT NULL DEFAULT 'selective',
    "status" TEXT NOT NULL DEFAULT 'queued',
    "endpointJson" TEXT NOT NULL DEFAULT '{}',
    "divergenceJson" TEXT,
    "errorJson" TEXT,
    "logJson" TEXT NOT NULL DEFAULT '[]',
    "resultCaseId" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    CONSTRAINT "ReplayRun_sourceCaseId_fkey" FOREIGN KEY ("sourceCaseId") REFERENCES "Case" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ReplayRun_resultCaseId_fkey" FOREIGN KEY ("resultCaseId") REFERENCES "Case" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "ReplayRun_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "user" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorId" TEXT,
    "action" TEXT NOT NULL,
    "entityType" TEXT NOT NULL,
    "entityId" TEXT NOT NULL,
    "caseId" TEXT,
    "dataJson" TEXT NOT NULL DEFAULT '{}',
    CONSTRAINT "AuditEvent_actorId_fkey" FOREIGN KEY ("actorId") REFERENCES "user" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Case_bundleId_key" ON "Case"("bundleId");

-- CreateIndex
CREATE INDEX "Case_benchmark_idx" ON "Case"("benchmark");

-- CreateIndex
CREATE INDEX "Case_mas_idx" ON "Case"("mas");

-- CreateIndex
CREATE INDEX "Case_sourceDataset_idx" ON "Case"("sourceDataset");

-- CreateIndex
CREATE INDEX "Node_caseId_orderIndex_idx" ON "Node"("caseId", "orderIndex");

-- CreateIndex
CREATE UNIQUE INDEX "Node_caseId_nodeId_key" ON "Node"("caseId", "nodeId");

-- CreateIndex
CREATE INDEX "Edge_caseId_fromNodeId_idx" ON "Edge"("caseId", "fromNodeId");

-- CreateIndex
CREATE INDEX "Edge_caseId_toNodeId_idx" ON "Edge"("caseId", "toNodeId");

-- CreateIndex
CREATE UNIQUE INDEX "Edge_caseId_idx_key" ON "Edge"("caseId", "idx");

-- CreateIndex
CREATE INDEX "BoundaryRecord_caseId_nodeId_idx" ON "BoundaryRecord"("caseId", "nodeId");

-- CreateIndex
CREATE UNIQUE INDEX "BoundaryRecord_caseId_seq_key" ON "BoundaryRecord"("caseId", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "ReferenceLabel_caseId_idx_key" ON "ReferenceLabel"("caseId", "idx");

-- CreateIndex
CREATE UNIQUE INDEX "user_email_key" ON "user"("email");

-- CreateIndex
CREATE UNIQUE INDEX "session_token_key" ON "session"("token");

-- CreateIndex
CREATE INDEX "Assignment_userId_status_idx" ON "Assignment"("userId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "Assignment_caseId_userId_role_key" ON "Assignment"("caseId", "userId", "role");

-- CreateIndex
CREATE INDEX "Annotation_caseId_kind_status_idx" ON "Annotation"("caseId", "kind", "status");

-- CreateIndex
CREATE UNIQUE INDEX "Annotation_caseId_userId_kind_key" ON "Annotation"("caseId", "userId", "kind");

-- CreateIndex
CREATE UNIQUE INDEX "Evidence_annotationId_idx_key" ON "Evidence"("annotationId", "idx");

-- CreateIndex
CREATE INDEX "ReplayRun_sourceCaseId_createdAt_idx" ON "ReplayRun"("sourceCaseId", "createdAt");

-- CreateIndex
CREATE INDEX "ReplayRun_status_idx" ON "ReplayRun"("status");

-- CreateIndex
CREATE INDEX "AuditEvent_caseId_at_idx" ON "AuditEvent"("caseId", "at");

-- CreateIndex
CREATE INDEX "AuditEvent_entityType_entityId_idx" ON "AuditEvent"("entityType", "entityId");

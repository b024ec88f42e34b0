-- A row becomes a run of batches, seq to last_seq; each row so far is one batch.
ALTER TABLE "agent_batches" ADD COLUMN "last_seq" bigint;
--> statement-breakpoint
UPDATE "agent_batches" SET "last_seq" = "seq";
--> statement-breakpoint
ALTER TABLE "agent_batches" ALTER COLUMN "last_seq" SET NOT NULL;

-- A row becomes a run of batches, seq to last_seq; each row so far is one batch. SQLite adds a
-- NOT NULL column only with a default: 0 is never kept, every row is set here and every insert
-- names last_seq (agent-store.ts).
ALTER TABLE `agent_batches` ADD `last_seq` integer NOT NULL DEFAULT 0;
--> statement-breakpoint
UPDATE `agent_batches` SET `last_seq` = `seq`;

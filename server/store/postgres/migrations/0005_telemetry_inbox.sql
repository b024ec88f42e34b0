CREATE TABLE "telemetry_inbox" (
	"series_id" bigint NOT NULL,
	"ts" bigint NOT NULL,
	"value" double precision NOT NULL
);
--> statement-breakpoint
-- Inbox rows go with their series, like raw rows and blocks (see 0003).
CREATE OR REPLACE FUNCTION "caudal_telemetry_series_cascade"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM "telemetry_inbox" WHERE "series_id" IN (SELECT "id" FROM gone);
	DELETE FROM "telemetry_raw" WHERE "series_id" IN (SELECT "id" FROM gone);
	DELETE FROM "telemetry_packed" WHERE "series_id" IN (SELECT "id" FROM gone);
	DELETE FROM "telemetry_rollup_5m" WHERE "series_id" IN (SELECT "id" FROM gone);
	DELETE FROM "telemetry_rollup_1h" WHERE "series_id" IN (SELECT "id" FROM gone);
	RETURN NULL;
END $$;

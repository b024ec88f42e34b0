-- Raw rows, packed blocks and rollups carry no foreign key (it would cost a lookup per inserted
-- point): they go with their series, and a series goes with its asset or project, as SQLite's
-- telemetry_series_cascade trigger does. One statement per table for all the series a statement
-- removed (a project's deletion removes all of its series at once).
CREATE FUNCTION "caudal_telemetry_series_cascade"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM "telemetry_raw" WHERE "series_id" IN (SELECT "id" FROM gone);
	DELETE FROM "telemetry_packed" WHERE "series_id" IN (SELECT "id" FROM gone);
	DELETE FROM "telemetry_rollup_5m" WHERE "series_id" IN (SELECT "id" FROM gone);
	DELETE FROM "telemetry_rollup_1h" WHERE "series_id" IN (SELECT "id" FROM gone);
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "telemetry_series_cascade" AFTER DELETE ON "telemetry_series"
	REFERENCING OLD TABLE AS gone
	FOR EACH STATEMENT EXECUTE FUNCTION "caudal_telemetry_series_cascade"();

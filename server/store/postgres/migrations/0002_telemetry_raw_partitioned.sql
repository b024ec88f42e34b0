-- Raw readings are range-partitioned by ts, one partition per UTC day (issue 14 §2): retention
-- drops whole days, and a day's reads and packing touch one partition. drizzle-kit cannot declare
-- partitioning, so this recreates the table 0000 made (empty at this point).
--
-- No default partition: a row outside every partition is an error, never a silent catch-all that
-- later blocks creating the day it belongs to. Partitions are made by the functions below, which
-- the server calls ahead of time (from code, so that any instance can, and all may at once) and
-- for the days of a batch it has not seen yet (late data from an agent's store-and-forward queue).
DROP TABLE "telemetry_raw";
--> statement-breakpoint
CREATE TABLE "telemetry_raw" (
	"series_id" bigint NOT NULL,
	"ts" bigint NOT NULL,
	"value" double precision NOT NULL,
	CONSTRAINT "telemetry_raw_series_id_ts_pk" PRIMARY KEY("series_id","ts")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
-- Makes sure every UTC day holding an instant of [from_ms, to_ms] (epoch ms, both inclusive) has
-- its partition, telemetry_raw_YYYYMMDD; returns how many it created. A new partition is made as a
-- table and then attached, which locks telemetry_raw only against other DDL (SHARE UPDATE
-- EXCLUSIVE), not against ingest; CREATE TABLE … PARTITION OF would lock it against everything.
-- Concurrent callers are serialised by an advisory lock, so racing instances do not collide.
CREATE FUNCTION "caudal_ensure_telemetry_partitions"("from_ms" bigint, "to_ms" bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
	day_ms constant bigint := 86400000;
	first_day bigint := floor(from_ms / day_ms::numeric)::bigint;
	last_day bigint := floor(to_ms / day_ms::numeric)::bigint;
	part text;
	created integer := 0;
BEGIN
	IF from_ms IS NULL OR to_ms IS NULL OR to_ms < from_ms THEN
		RAISE EXCEPTION 'caudal_ensure_telemetry_partitions: [%, %] is not a range', from_ms, to_ms;
	END IF;
	-- A guard against a wild timestamp creating thousands of tables in one call.
	IF last_day - first_day >= 1000 THEN
		RAISE EXCEPTION 'caudal_ensure_telemetry_partitions: [%, %] spans % days; at most 1000 at once',
			from_ms, to_ms, last_day - first_day + 1;
	END IF;
	PERFORM pg_advisory_xact_lock(hashtext('caudal_telemetry_partitions'));
	FOR day IN first_day..last_day LOOP
		part := 'telemetry_raw_' || to_char(to_timestamp(day * 86400) AT TIME ZONE 'UTC', 'YYYYMMDD');
		CONTINUE WHEN to_regclass(format('%I', part)) IS NOT NULL;
		EXECUTE format('CREATE TABLE %I (LIKE "telemetry_raw" INCLUDING DEFAULTS)', part);
		EXECUTE format('ALTER TABLE "telemetry_raw" ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)',
			part, day * day_ms, (day + 1) * day_ms);
		created := created + 1;
	END LOOP;
	RETURN created;
END $$;
--> statement-breakpoint
-- Retention (issue 14 §2: "retention drops whole partitions"): drops every partition whose whole
-- day ends at or before before_ms; returns how many it dropped. Rows of a day that straddles the
-- cutoff stay until the next call after that day ends.
CREATE FUNCTION "caudal_drop_telemetry_partitions"("before_ms" bigint) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
	part record;
	dropped integer := 0;
BEGIN
	PERFORM pg_advisory_xact_lock(hashtext('caudal_telemetry_partitions'));
	FOR part IN
		SELECT c.oid::regclass AS name,
			(regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''?(-?\d+)''?\)'))[1]::bigint AS upper_ms
		FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = '"telemetry_raw"'::regclass
	LOOP
		CONTINUE WHEN part.upper_ms IS NULL OR part.upper_ms > before_ms;
		EXECUTE format('DROP TABLE %s', part.name);
		dropped := dropped + 1;
	END LOOP;
	RETURN dropped;
END $$;

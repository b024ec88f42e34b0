ALTER TABLE "telemetry_series" ADD COLUMN "rolled_to" bigint;--> statement-breakpoint
-- Servers cache which project owns an asset (telemetry ingest asks on every request). SQLite's
-- cache is told by temporary triggers on its one connection; here every server LISTENs on
-- caudal_assets and forgets what a committed statement moved or deleted: the payload is the
-- asset ids, one a line, or '*' (forget everything) when they would not fit a notification.
CREATE FUNCTION "caudal_assets_changed"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	ids text;
BEGIN
	IF TG_OP = 'UPDATE' THEN
		SELECT string_agg(g."id", E'\n') INTO ids FROM gone g JOIN now n USING ("id")
		 WHERE g."project_id" IS DISTINCT FROM n."project_id";
	ELSE
		SELECT string_agg("id", E'\n') INTO ids FROM gone;
	END IF;
	IF ids IS NOT NULL THEN
		PERFORM pg_notify('caudal_assets', CASE WHEN octet_length(ids) > 7000 THEN '*' ELSE ids END);
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "caudal_assets_deleted" AFTER DELETE ON "assets"
	REFERENCING OLD TABLE AS gone
	FOR EACH STATEMENT EXECUTE FUNCTION "caudal_assets_changed"();
--> statement-breakpoint
CREATE TRIGGER "caudal_assets_moved" AFTER UPDATE ON "assets"
	REFERENCING OLD TABLE AS gone NEW TABLE AS now
	FOR EACH STATEMENT EXECUTE FUNCTION "caudal_assets_changed"();

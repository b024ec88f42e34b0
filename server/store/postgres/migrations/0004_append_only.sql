-- API MPMS 21.1 §5: the audit trail and the operational records are kept original and unaltered
-- (issue 14 §2: "exactly as on SQLite"; SQLite's are in server/store/sqlite/migrations/0003). The
-- application only ever appends; these guards make the database refuse anything else. TRUNCATE,
-- which SQLite does not have and which skips row triggers, is refused too.
CREATE FUNCTION "caudal_refuse"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION '%', TG_ARGV[0];
END $$;
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_update" BEFORE UPDATE ON "audit_log"
	FOR EACH ROW EXECUTE FUNCTION "caudal_refuse"('audit_log is append-only');
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_delete" BEFORE DELETE ON "audit_log"
	FOR EACH ROW EXECUTE FUNCTION "caudal_refuse"('audit_log is append-only');
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "audit_log"
	FOR EACH STATEMENT EXECUTE FUNCTION "caudal_refuse"('audit_log is append-only');
--> statement-breakpoint
-- seq is gap-free, as SQLite's AUTOINCREMENT is (a rolled-back insert spends no seq there, where a
-- PostgreSQL sequence would), so the verifier can read a gap as a removal. audit_log_head holds
-- the highest seq ever issued (SQLite's sqlite_sequence row); each insert must take the next one
-- and advances it in the same transaction. An appender locks the head first (SELECT … FOR UPDATE),
-- then reads the previous hash: appends are serialised, as the hash chain needs.
INSERT INTO "audit_log_head" ("one", "seq") VALUES (true, 0);
--> statement-breakpoint
CREATE FUNCTION "caudal_audit_log_issue_seq"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	issued bigint;
BEGIN
	SELECT "seq" INTO issued FROM "audit_log_head" WHERE "one" FOR UPDATE;
	IF NEW."seq" IS DISTINCT FROM issued + 1 THEN
		RAISE EXCEPTION 'audit_log: seq % does not follow the last seq issued, %', NEW."seq", issued
			USING ERRCODE = 'integrity_constraint_violation';
	END IF;
	UPDATE "audit_log_head" SET "seq" = NEW."seq" WHERE "one";
	RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "audit_log_issue_seq" BEFORE INSERT ON "audit_log"
	FOR EACH ROW EXECUTE FUNCTION "caudal_audit_log_issue_seq"();
--> statement-breakpoint
-- Operational records are quantity records (ANH 0651): a correction is a new row, never an edit.
-- created_by may still change, to null, when its user is removed (ON DELETE SET NULL).
--
-- Rows go only with their project (DELETE /edge/projects/{id}) or the asset they belong to, by
-- the foreign-key cascade, which runs after the parent row is gone; a direct DELETE, while the
-- parents it names still exist, is refused. TG_ARGV: the message, then the parent columns.
CREATE FUNCTION "caudal_record_delete_guard"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	old_row jsonb := to_jsonb(OLD);
BEGIN
	IF EXISTS (SELECT 1 FROM "projects" WHERE "id" = old_row ->> 'project_id')
		AND (TG_NARGS < 2 OR EXISTS (SELECT 1 FROM "assets" WHERE "id" = old_row ->> TG_ARGV[1])) THEN
		RAISE EXCEPTION '%', TG_ARGV[0];
	END IF;
	RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER "movements_no_update" BEFORE UPDATE OF "id", "project_id", "supersedes", "correction_reason", "created_at", "movement_type", "volume_bbls", "timestamp", "notes" ON "movements"
	FOR EACH ROW EXECUTE FUNCTION "caudal_refuse"('movements: records are append-only; post a correction that supersedes the record');
--> statement-breakpoint
CREATE TRIGGER "movements_no_delete" BEFORE DELETE ON "movements"
	FOR EACH ROW EXECUTE FUNCTION "caudal_record_delete_guard"('movements: records are append-only; post a correction that supersedes the record');
--> statement-breakpoint
CREATE TRIGGER "movements_no_truncate" BEFORE TRUNCATE ON "movements"
	FOR EACH STATEMENT EXECUTE FUNCTION "caudal_refuse"('movements: records are append-only; post a correction that supersedes the record');
--> statement-breakpoint
CREATE TRIGGER "downtime_no_update" BEFORE UPDATE OF "id", "project_id", "supersedes", "correction_reason", "created_at", "reason", "started_at", "ended_at" ON "downtime"
	FOR EACH ROW EXECUTE FUNCTION "caudal_refuse"('downtime: records are append-only; post a correction that supersedes the record');
--> statement-breakpoint
CREATE TRIGGER "downtime_no_delete" BEFORE DELETE ON "downtime"
	FOR EACH ROW EXECUTE FUNCTION "caudal_record_delete_guard"('downtime: records are append-only; post a correction that supersedes the record');
--> statement-breakpoint
CREATE TRIGGER "downtime_no_truncate" BEFORE TRUNCATE ON "downtime"
	FOR EACH STATEMENT EXECUTE FUNCTION "caudal_refuse"('downtime: records are append-only; post a correction that supersedes the record');
--> statement-breakpoint
CREATE TRIGGER "well_tests_no_update" BEFORE UPDATE OF "id", "project_id", "supersedes", "correction_reason", "created_at", "asset_id", "test_date", "oil_rate_bopd", "water_cut_pct", "gor_scf_bbl" ON "well_tests"
	FOR EACH ROW EXECUTE FUNCTION "caudal_refuse"('well_tests: records are append-only; post a correction that supersedes the record');
--> statement-breakpoint
CREATE TRIGGER "well_tests_no_delete" BEFORE DELETE ON "well_tests"
	FOR EACH ROW EXECUTE FUNCTION "caudal_record_delete_guard"('well_tests: records are append-only; post a correction that supersedes the record', 'asset_id');
--> statement-breakpoint
CREATE TRIGGER "well_tests_no_truncate" BEFORE TRUNCATE ON "well_tests"
	FOR EACH STATEMENT EXECUTE FUNCTION "caudal_refuse"('well_tests: records are append-only; post a correction that supersedes the record');
--> statement-breakpoint
CREATE TRIGGER "lab_results_no_update" BEFORE UPDATE OF "id", "project_id", "supersedes", "correction_reason", "created_at", "sample_date", "api_gravity", "bsw_pct", "viscosity_cp" ON "lab_results"
	FOR EACH ROW EXECUTE FUNCTION "caudal_refuse"('lab_results: records are append-only; post a correction that supersedes the record');
--> statement-breakpoint
CREATE TRIGGER "lab_results_no_delete" BEFORE DELETE ON "lab_results"
	FOR EACH ROW EXECUTE FUNCTION "caudal_record_delete_guard"('lab_results: records are append-only; post a correction that supersedes the record');
--> statement-breakpoint
CREATE TRIGGER "lab_results_no_truncate" BEFORE TRUNCATE ON "lab_results"
	FOR EACH STATEMENT EXECUTE FUNCTION "caudal_refuse"('lab_results: records are append-only; post a correction that supersedes the record');
--> statement-breakpoint
CREATE TRIGGER "meter_readings_no_update" BEFORE UPDATE OF "id", "project_id", "supersedes", "correction_reason", "created_at", "meter_id", "reading_value", "read_at", "unit" ON "meter_readings"
	FOR EACH ROW EXECUTE FUNCTION "caudal_refuse"('meter_readings: records are append-only; post a correction that supersedes the record');
--> statement-breakpoint
CREATE TRIGGER "meter_readings_no_delete" BEFORE DELETE ON "meter_readings"
	FOR EACH ROW EXECUTE FUNCTION "caudal_record_delete_guard"('meter_readings: records are append-only; post a correction that supersedes the record', 'meter_id');
--> statement-breakpoint
CREATE TRIGGER "meter_readings_no_truncate" BEFORE TRUNCATE ON "meter_readings"
	FOR EACH STATEMENT EXECUTE FUNCTION "caudal_refuse"('meter_readings: records are append-only; post a correction that supersedes the record');

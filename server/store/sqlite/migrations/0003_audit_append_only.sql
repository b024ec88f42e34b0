-- API MPMS 21.1 §5: the audit trail is kept original and unaltered. The application only ever
-- appends (appendAudit); these guards make the storage refuse anything else, so an edit needs a
-- deliberate schema change, and GET /api/audit/verify shows any edit that gets past them.
CREATE TRIGGER `audit_log_no_update` BEFORE UPDATE ON `audit_log` BEGIN
	SELECT RAISE(ABORT, 'audit_log is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_log_no_delete` BEFORE DELETE ON `audit_log` BEGIN
	SELECT RAISE(ABORT, 'audit_log is append-only');
END;
--> statement-breakpoint
-- Operational records are quantity records (ANH 0651): a correction is a new row, never an edit.
-- created_by may still change, to null, when its user is removed (ON DELETE SET NULL).
CREATE TRIGGER `movements_no_update` BEFORE UPDATE OF `id`, `project_id`, `supersedes`, `correction_reason`, `created_at`, `movement_type`, `volume_bbls`, `timestamp`, `notes` ON `movements` BEGIN
	SELECT RAISE(ABORT, 'movements: records are append-only; post a correction that supersedes the record');
END;
--> statement-breakpoint
-- Rows go only with their project (DELETE /edge/projects/{id}) or the asset they belong to, by
-- the foreign-key cascade, which runs after the parent row is gone; a direct DELETE is refused.
CREATE TRIGGER `movements_no_delete` BEFORE DELETE ON `movements`
	WHEN EXISTS (SELECT 1 FROM `projects` WHERE `id` = OLD.`project_id`)
BEGIN
	SELECT RAISE(ABORT, 'movements: records are append-only; post a correction that supersedes the record');
END;
--> statement-breakpoint
CREATE TRIGGER `downtime_no_update` BEFORE UPDATE OF `id`, `project_id`, `supersedes`, `correction_reason`, `created_at`, `reason`, `started_at`, `ended_at` ON `downtime` BEGIN
	SELECT RAISE(ABORT, 'downtime: records are append-only; post a correction that supersedes the record');
END;
--> statement-breakpoint
CREATE TRIGGER `downtime_no_delete` BEFORE DELETE ON `downtime`
	WHEN EXISTS (SELECT 1 FROM `projects` WHERE `id` = OLD.`project_id`)
BEGIN
	SELECT RAISE(ABORT, 'downtime: records are append-only; post a correction that supersedes the record');
END;
--> statement-breakpoint
CREATE TRIGGER `well_tests_no_update` BEFORE UPDATE OF `id`, `project_id`, `supersedes`, `correction_reason`, `created_at`, `asset_id`, `test_date`, `oil_rate_bopd`, `water_cut_pct`, `gor_scf_bbl` ON `well_tests` BEGIN
	SELECT RAISE(ABORT, 'well_tests: records are append-only; post a correction that supersedes the record');
END;
--> statement-breakpoint
CREATE TRIGGER `well_tests_no_delete` BEFORE DELETE ON `well_tests`
	WHEN EXISTS (SELECT 1 FROM `projects` WHERE `id` = OLD.`project_id`)
	AND EXISTS (SELECT 1 FROM `assets` WHERE `id` = OLD.`asset_id`)
BEGIN
	SELECT RAISE(ABORT, 'well_tests: records are append-only; post a correction that supersedes the record');
END;
--> statement-breakpoint
CREATE TRIGGER `lab_results_no_update` BEFORE UPDATE OF `id`, `project_id`, `supersedes`, `correction_reason`, `created_at`, `sample_date`, `api_gravity`, `bsw_pct`, `viscosity_cp` ON `lab_results` BEGIN
	SELECT RAISE(ABORT, 'lab_results: records are append-only; post a correction that supersedes the record');
END;
--> statement-breakpoint
CREATE TRIGGER `lab_results_no_delete` BEFORE DELETE ON `lab_results`
	WHEN EXISTS (SELECT 1 FROM `projects` WHERE `id` = OLD.`project_id`)
BEGIN
	SELECT RAISE(ABORT, 'lab_results: records are append-only; post a correction that supersedes the record');
END;
--> statement-breakpoint
CREATE TRIGGER `meter_readings_no_update` BEFORE UPDATE OF `id`, `project_id`, `supersedes`, `correction_reason`, `created_at`, `meter_id`, `reading_value`, `read_at`, `unit` ON `meter_readings` BEGIN
	SELECT RAISE(ABORT, 'meter_readings: records are append-only; post a correction that supersedes the record');
END;
--> statement-breakpoint
CREATE TRIGGER `meter_readings_no_delete` BEFORE DELETE ON `meter_readings`
	WHEN EXISTS (SELECT 1 FROM `projects` WHERE `id` = OLD.`project_id`)
	AND EXISTS (SELECT 1 FROM `assets` WHERE `id` = OLD.`meter_id`)
BEGIN
	SELECT RAISE(ABORT, 'meter_readings: records are append-only; post a correction that supersedes the record');
END;

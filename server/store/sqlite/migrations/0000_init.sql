CREATE TABLE `agent_batches` (
	`project_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`seq` integer NOT NULL,
	`points` integer NOT NULL,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`project_id`, `agent_id`, `seq`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `agent_logs` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`level` text NOT NULL,
	`category` text DEFAULT 'agent' NOT NULL,
	`message` text NOT NULL,
	`timestamp` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_logs_project_ts_idx` ON `agent_logs` (`project_id`,`timestamp`);--> statement-breakpoint
CREATE TABLE `agent_status` (
	`project_id` text PRIMARY KEY NOT NULL,
	`last_seen` integer NOT NULL,
	`heartbeat` text,
	`offline_at` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `deployments` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`version` integer NOT NULL,
	`config_hash` text NOT NULL,
	`config` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `deployments_project_idx` ON `deployments` (`project_id`,`version`);--> statement-breakpoint
CREATE TABLE `alarm_events` (
	`id` text PRIMARY KEY NOT NULL,
	`alarm_id` text NOT NULL,
	`event` text NOT NULL,
	`at` integer NOT NULL,
	`value` real,
	`user_id` text,
	FOREIGN KEY (`alarm_id`) REFERENCES `alarms`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `alarm_events_alarm_idx` ON `alarm_events` (`alarm_id`);--> statement-breakpoint
CREATE TABLE `alarms` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`asset_id` text,
	`rule_id` text,
	`variable` text NOT NULL,
	`value` real NOT NULL,
	`alarm_type` text NOT NULL,
	`severity` text NOT NULL,
	`message` text NOT NULL,
	`timestamp` integer NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`returned_at` integer,
	`acknowledged` integer DEFAULT false NOT NULL,
	`acknowledged_at` integer,
	`acknowledged_by` text,
	`source` text DEFAULT 'server' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`asset_id`) REFERENCES `assets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`rule_id`) REFERENCES `alert_rules`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`acknowledged_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `alarms_project_open_idx` ON `alarms` (`project_id`,`active`,`acknowledged`);--> statement-breakpoint
CREATE INDEX `alarms_rule_idx` ON `alarms` (`rule_id`);--> statement-breakpoint
CREATE TABLE `alert_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`variable_alias` text NOT NULL,
	`condition` text NOT NULL,
	`threshold` real NOT NULL,
	`severity` text NOT NULL,
	`is_enabled` integer DEFAULT true NOT NULL,
	`deadband` real DEFAULT 0 NOT NULL,
	`delay_seconds` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alert_rules_project_idx` ON `alert_rules` (`project_id`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`at` integer NOT NULL,
	`user_id` text,
	`project_id` text,
	`entity` text NOT NULL,
	`entity_id` text NOT NULL,
	`action` text NOT NULL,
	`before` text,
	`after` text,
	`prev_hash` text NOT NULL,
	`hash` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_log_id_unique` ON `audit_log` (`id`);--> statement-breakpoint
CREATE INDEX `audit_log_project_at_idx` ON `audit_log` (`project_id`,`at`);--> statement-breakpoint
CREATE TABLE `invoices` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`period` text NOT NULL,
	`plan` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`status` text NOT NULL,
	`issued_at` integer NOT NULL,
	`paid_at` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_project_period_uq` ON `invoices` (`project_id`,`period`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`project_id` text PRIMARY KEY NOT NULL,
	`plan` text NOT NULL,
	`started_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `usage_counters` (
	`project_id` text NOT NULL,
	`period` text NOT NULL,
	`telemetry_points` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `period`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `usage_snapshots` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`period_start` integer NOT NULL,
	`period_end` integer NOT NULL,
	`telemetry_points` integer NOT NULL,
	`active_devices` integer NOT NULL,
	`plan` text,
	`estimated_cost_cents` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `assets` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`asset_type` text NOT NULL,
	`latitude` real,
	`longitude` real,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `assets_project_idx` ON `assets` (`project_id`);--> statement-breakpoint
CREATE TABLE `devices` (
	`id` text PRIMARY KEY NOT NULL,
	`asset_id` text NOT NULL,
	`name` text NOT NULL,
	`protocol` text NOT NULL,
	`host` text,
	`port` integer,
	`slave_id` integer,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`asset_id`) REFERENCES `assets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `devices_asset_idx` ON `devices` (`asset_id`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`location` text,
	`is_active` integer DEFAULT true NOT NULL,
	`timezone` text DEFAULT 'America/Bogota' NOT NULL,
	`last_health_report` text,
	`agent_token_hash` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `variables` (
	`id` text PRIMARY KEY NOT NULL,
	`device_id` text NOT NULL,
	`alias` text NOT NULL,
	`data_type` text NOT NULL,
	`register_address` integer,
	`unit` text,
	`scale_factor` real,
	`enabled` integer DEFAULT true NOT NULL,
	`address` text,
	`register_kind` text DEFAULT 'holding' NOT NULL,
	`word_order` text DEFAULT 'ABCD' NOT NULL,
	`poll_interval_ms` integer DEFAULT 1000 NOT NULL,
	`deadband` real DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `variables_device_alias_uq` ON `variables` (`device_id`,`alias`);--> statement-breakpoint
CREATE TABLE `recovery_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`code_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `recovery_codes_user_idx` ON `recovery_codes` (`user_id`);--> statement-breakpoint
CREATE TABLE `refresh_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`rotated_at` integer,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `refresh_tokens_session_idx` ON `refresh_tokens` (`session_id`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	`revoked_reason` text,
	`ip` text,
	`user_agent` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `user_projects` (
	`user_id` text NOT NULL,
	`project_id` text NOT NULL,
	PRIMARY KEY(`user_id`, `project_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_projects_project_idx` ON `user_projects` (`project_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`password_hash` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`two_factor_enabled` integer DEFAULT false NOT NULL,
	`two_factor_secret_encrypted` blob,
	`two_factor_pending_secret_encrypted` blob,
	`last_totp_step_used` integer,
	`totp_failed_attempts` integer DEFAULT 0 NOT NULL,
	`totp_first_failure_at` integer,
	`totp_locked_until` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `downtime` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`supersedes` text,
	`correction_reason` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	`reason` text NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `downtime_project_idx` ON `downtime` (`project_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `lab_results` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`supersedes` text,
	`correction_reason` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	`sample_date` integer NOT NULL,
	`api_gravity` real NOT NULL,
	`bsw_pct` real,
	`viscosity_cp` real,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `lab_results_project_idx` ON `lab_results` (`project_id`,`sample_date`);--> statement-breakpoint
CREATE TABLE `meter_readings` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`supersedes` text,
	`correction_reason` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	`meter_id` text NOT NULL,
	`reading_value` real NOT NULL,
	`read_at` integer NOT NULL,
	`unit` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`meter_id`) REFERENCES `assets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `meter_readings_project_idx` ON `meter_readings` (`project_id`,`read_at`);--> statement-breakpoint
CREATE TABLE `movements` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`supersedes` text,
	`correction_reason` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	`movement_type` text NOT NULL,
	`volume_bbls` real NOT NULL,
	`timestamp` integer NOT NULL,
	`notes` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `movements_project_ts_idx` ON `movements` (`project_id`,`timestamp`);--> statement-breakpoint
CREATE TABLE `well_tests` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`supersedes` text,
	`correction_reason` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	`asset_id` text NOT NULL,
	`test_date` integer NOT NULL,
	`oil_rate_bopd` real,
	`water_cut_pct` real,
	`gor_scf_bbl` real,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`asset_id`) REFERENCES `assets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `well_tests_project_idx` ON `well_tests` (`project_id`,`test_date`);--> statement-breakpoint
CREATE TABLE `anh_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`report_date` text NOT NULL,
	`period_start` integer NOT NULL,
	`period_end` integer NOT NULL,
	`status` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`supersedes` text,
	`content` blob,
	`hash_sha384` text,
	`previous_hash_sha384` text,
	`generated_at` integer,
	`submitted_at` integer,
	`submitted_by` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`submitted_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `anh_reports_project_day_version_uq` ON `anh_reports` (`project_id`,`report_date`,`version`);--> statement-breakpoint
CREATE INDEX `anh_reports_project_idx` ON `anh_reports` (`project_id`,`report_date`);--> statement-breakpoint
CREATE TABLE `telemetry_raw` (
	`series_id` integer NOT NULL,
	`ts` integer NOT NULL,
	`value` real NOT NULL,
	PRIMARY KEY(`series_id`, `ts`)
);
--> statement-breakpoint
CREATE TABLE `telemetry_rollup_1h` (
	`series_id` integer NOT NULL,
	`bucket` integer NOT NULL,
	`count` integer NOT NULL,
	`sum` real NOT NULL,
	`min` real NOT NULL,
	`max` real NOT NULL,
	PRIMARY KEY(`series_id`, `bucket`)
);
--> statement-breakpoint
CREATE TABLE `telemetry_rollup_5m` (
	`series_id` integer NOT NULL,
	`bucket` integer NOT NULL,
	`count` integer NOT NULL,
	`sum` real NOT NULL,
	`min` real NOT NULL,
	`max` real NOT NULL,
	PRIMARY KEY(`series_id`, `bucket`)
);
--> statement-breakpoint
CREATE TABLE `telemetry_series` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` text NOT NULL,
	`asset_id` text NOT NULL,
	`variable` text NOT NULL,
	`unit` text,
	`last_ts` integer,
	`last_value` real,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`asset_id`) REFERENCES `assets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `telemetry_series_asset_variable_uq` ON `telemetry_series` (`asset_id`,`variable`);--> statement-breakpoint
CREATE INDEX `telemetry_series_project_idx` ON `telemetry_series` (`project_id`);
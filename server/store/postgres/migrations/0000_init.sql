CREATE TABLE "agent_batches" (
	"project_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"points" bigint NOT NULL,
	"received_at" bigint NOT NULL,
	CONSTRAINT "agent_batches_project_id_agent_id_seq_pk" PRIMARY KEY("project_id","agent_id","seq")
);
--> statement-breakpoint
CREATE TABLE "agent_logs" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"level" text NOT NULL,
	"category" text DEFAULT 'agent' NOT NULL,
	"message" text NOT NULL,
	"timestamp" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_status" (
	"project_id" text PRIMARY KEY NOT NULL,
	"last_seen" bigint NOT NULL,
	"heartbeat" text,
	"offline_at" bigint
);
--> statement-breakpoint
CREATE TABLE "deployments" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"version" bigint NOT NULL,
	"config_hash" text NOT NULL,
	"config" text NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"created_by" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "enrollment_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"code_hash" text NOT NULL,
	"purpose" text NOT NULL,
	"created_by" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"revoked_at" bigint,
	CONSTRAINT "enrollment_codes_code_hash_unique" UNIQUE("code_hash")
);
--> statement-breakpoint
CREATE TABLE "alarm_events" (
	"id" text PRIMARY KEY NOT NULL,
	"alarm_id" text NOT NULL,
	"event" text NOT NULL,
	"at" bigint NOT NULL,
	"value" double precision,
	"user_id" text,
	"write_seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "alarm_events_write_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1)
);
--> statement-breakpoint
CREATE TABLE "alarms" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"asset_id" text,
	"rule_id" text,
	"variable" text NOT NULL,
	"value" double precision NOT NULL,
	"alarm_type" text NOT NULL,
	"severity" text NOT NULL,
	"message" text NOT NULL,
	"timestamp" bigint NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"returned_at" bigint,
	"acknowledged" boolean DEFAULT false NOT NULL,
	"acknowledged_at" bigint,
	"acknowledged_by" text,
	"source" text DEFAULT 'server' NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_rules" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"variable_alias" text NOT NULL,
	"condition" text NOT NULL,
	"threshold" double precision NOT NULL,
	"severity" text NOT NULL,
	"is_enabled" boolean DEFAULT true NOT NULL,
	"deadband" double precision DEFAULT 0 NOT NULL,
	"delay_seconds" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"seq" bigint PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"at" bigint NOT NULL,
	"user_id" text,
	"project_id" text,
	"entity" text NOT NULL,
	"entity_id" text NOT NULL,
	"action" text NOT NULL,
	"before" text,
	"after" text,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL,
	CONSTRAINT "audit_log_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "audit_log_head" (
	"one" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"seq" bigint NOT NULL,
	CONSTRAINT "audit_log_head_one_row" CHECK ("audit_log_head"."one")
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"period" text NOT NULL,
	"plan" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"status" text NOT NULL,
	"issued_at" bigint NOT NULL,
	"paid_at" bigint
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"project_id" text PRIMARY KEY NOT NULL,
	"plan" text NOT NULL,
	"started_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_counters" (
	"project_id" text NOT NULL,
	"period" text NOT NULL,
	"telemetry_points" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_counters_project_id_period_pk" PRIMARY KEY("project_id","period")
);
--> statement-breakpoint
CREATE TABLE "usage_snapshots" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"period_start" bigint NOT NULL,
	"period_end" bigint NOT NULL,
	"telemetry_points" bigint NOT NULL,
	"active_devices" bigint NOT NULL,
	"plan" text,
	"estimated_cost_cents" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "installer_builds" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"status" text NOT NULL,
	"rebuild" boolean NOT NULL,
	"server_url" text NOT NULL,
	"agent_version" text,
	"inputs_sha256" text,
	"enrollment_code_id" text,
	"file" text,
	"bytes" bigint,
	"sha256" text,
	"log" text DEFAULT '' NOT NULL,
	"requested_by" text,
	"created_at" bigint NOT NULL,
	"started_at" bigint,
	"finished_at" bigint
);
--> statement-breakpoint
CREATE TABLE "assets" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"asset_type" text NOT NULL,
	"latitude" double precision,
	"longitude" double precision,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "devices" (
	"id" text PRIMARY KEY NOT NULL,
	"asset_id" text NOT NULL,
	"name" text NOT NULL,
	"protocol" text NOT NULL,
	"host" text,
	"port" bigint,
	"slave_id" bigint,
	"enabled" boolean DEFAULT true NOT NULL,
	"settings" text,
	"settings_password_encrypted" "bytea",
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text,
	"location" text,
	"is_active" boolean DEFAULT true NOT NULL,
	"timezone" text DEFAULT 'America/Bogota' NOT NULL,
	"last_health_report" text,
	"agent_token_hash" text,
	"auto_deploy" boolean DEFAULT true NOT NULL,
	"sparkplug_edge_node_id" text DEFAULT 'agent' NOT NULL,
	"sparkplug_primary_host_id" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "projects_slug_uq" UNIQUE("slug")
);
--> statement-breakpoint
CREATE TABLE "variables" (
	"id" text PRIMARY KEY NOT NULL,
	"device_id" text NOT NULL,
	"alias" text NOT NULL,
	"data_type" text NOT NULL,
	"register_address" bigint,
	"unit" text,
	"scale_factor" double precision,
	"enabled" boolean DEFAULT true NOT NULL,
	"address" text,
	"register_kind" text DEFAULT 'holding' NOT NULL,
	"word_order" text DEFAULT 'ABCD' NOT NULL,
	"poll_interval_ms" bigint DEFAULT 1000 NOT NULL,
	"deadband" double precision DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recovery_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"code_hash" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"session_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"rotated_at" bigint
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"revoked_at" bigint,
	"revoked_reason" text,
	"ip" text,
	"user_agent" text
);
--> statement-breakpoint
CREATE TABLE "user_projects" (
	"user_id" text NOT NULL,
	"project_id" text NOT NULL,
	CONSTRAINT "user_projects_user_id_project_id_pk" PRIMARY KEY("user_id","project_id")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"password_hash" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"two_factor_enabled" boolean DEFAULT false NOT NULL,
	"two_factor_secret_encrypted" "bytea",
	"two_factor_pending_secret_encrypted" "bytea",
	"last_totp_step_used" bigint,
	"totp_failed_attempts" bigint DEFAULT 0 NOT NULL,
	"totp_first_failure_at" bigint,
	"totp_locked_until" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE TABLE "downtime" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"supersedes" text,
	"correction_reason" text,
	"created_by" text,
	"created_at" bigint NOT NULL,
	"reason" text NOT NULL,
	"started_at" bigint NOT NULL,
	"ended_at" bigint
);
--> statement-breakpoint
CREATE TABLE "lab_results" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"supersedes" text,
	"correction_reason" text,
	"created_by" text,
	"created_at" bigint NOT NULL,
	"sample_date" bigint NOT NULL,
	"api_gravity" double precision NOT NULL,
	"bsw_pct" double precision,
	"viscosity_cp" double precision
);
--> statement-breakpoint
CREATE TABLE "meter_readings" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"supersedes" text,
	"correction_reason" text,
	"created_by" text,
	"created_at" bigint NOT NULL,
	"meter_id" text NOT NULL,
	"reading_value" double precision NOT NULL,
	"read_at" bigint NOT NULL,
	"unit" text
);
--> statement-breakpoint
CREATE TABLE "movements" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"supersedes" text,
	"correction_reason" text,
	"created_by" text,
	"created_at" bigint NOT NULL,
	"movement_type" text NOT NULL,
	"volume_bbls" double precision NOT NULL,
	"timestamp" bigint NOT NULL,
	"notes" text
);
--> statement-breakpoint
CREATE TABLE "well_tests" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"supersedes" text,
	"correction_reason" text,
	"created_by" text,
	"created_at" bigint NOT NULL,
	"asset_id" text NOT NULL,
	"test_date" bigint NOT NULL,
	"oil_rate_bopd" double precision,
	"water_cut_pct" double precision,
	"gor_scf_bbl" double precision
);
--> statement-breakpoint
CREATE TABLE "anh_reports" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"report_date" text NOT NULL,
	"period_start" bigint NOT NULL,
	"period_end" bigint NOT NULL,
	"status" text NOT NULL,
	"version" bigint DEFAULT 1 NOT NULL,
	"supersedes" text,
	"content" "bytea",
	"hash_sha384" text,
	"previous_hash_sha384" text,
	"generated_at" bigint,
	"submitted_at" bigint,
	"submitted_by" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mqtt_credentials" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_by" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sparkplug_nodes" (
	"project_id" text PRIMARY KEY NOT NULL,
	"bd_seq" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "telemetry_packed" (
	"series_id" bigint NOT NULL,
	"first_ts" bigint NOT NULL,
	"last_ts" bigint NOT NULL,
	"count" bigint NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "telemetry_packed_series_id_first_ts_pk" PRIMARY KEY("series_id","first_ts")
);
--> statement-breakpoint
CREATE TABLE "telemetry_raw" (
	"series_id" bigint NOT NULL,
	"ts" bigint NOT NULL,
	"value" double precision NOT NULL,
	CONSTRAINT "telemetry_raw_series_id_ts_pk" PRIMARY KEY("series_id","ts")
);
--> statement-breakpoint
CREATE TABLE "telemetry_rollup_1h" (
	"series_id" bigint NOT NULL,
	"bucket" bigint NOT NULL,
	"count" bigint NOT NULL,
	"sum" double precision NOT NULL,
	"min" double precision NOT NULL,
	"max" double precision NOT NULL,
	CONSTRAINT "telemetry_rollup_1h_series_id_bucket_pk" PRIMARY KEY("series_id","bucket")
);
--> statement-breakpoint
CREATE TABLE "telemetry_rollup_5m" (
	"series_id" bigint NOT NULL,
	"bucket" bigint NOT NULL,
	"count" bigint NOT NULL,
	"sum" double precision NOT NULL,
	"min" double precision NOT NULL,
	"max" double precision NOT NULL,
	CONSTRAINT "telemetry_rollup_5m_series_id_bucket_pk" PRIMARY KEY("series_id","bucket")
);
--> statement-breakpoint
CREATE TABLE "telemetry_series" (
	"id" bigint PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY (sequence name "telemetry_series_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"project_id" text NOT NULL,
	"asset_id" text NOT NULL,
	"variable" text NOT NULL,
	"unit" text,
	"last_ts" bigint,
	"last_value" double precision
);
--> statement-breakpoint
ALTER TABLE "agent_batches" ADD CONSTRAINT "agent_batches_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_logs" ADD CONSTRAINT "agent_logs_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_status" ADD CONSTRAINT "agent_status_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrollment_codes" ADD CONSTRAINT "enrollment_codes_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrollment_codes" ADD CONSTRAINT "enrollment_codes_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alarm_events" ADD CONSTRAINT "alarm_events_alarm_id_alarms_id_fk" FOREIGN KEY ("alarm_id") REFERENCES "public"."alarms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alarm_events" ADD CONSTRAINT "alarm_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alarms" ADD CONSTRAINT "alarms_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alarms" ADD CONSTRAINT "alarms_asset_id_assets_id_fk" FOREIGN KEY ("asset_id") REFERENCES "public"."assets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alarms" ADD CONSTRAINT "alarms_rule_id_alert_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."alert_rules"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alarms" ADD CONSTRAINT "alarms_acknowledged_by_users_id_fk" FOREIGN KEY ("acknowledged_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_counters" ADD CONSTRAINT "usage_counters_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_snapshots" ADD CONSTRAINT "usage_snapshots_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "installer_builds" ADD CONSTRAINT "installer_builds_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "installer_builds" ADD CONSTRAINT "installer_builds_enrollment_code_id_enrollment_codes_id_fk" FOREIGN KEY ("enrollment_code_id") REFERENCES "public"."enrollment_codes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "installer_builds" ADD CONSTRAINT "installer_builds_requested_by_users_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assets" ADD CONSTRAINT "assets_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_asset_id_assets_id_fk" FOREIGN KEY ("asset_id") REFERENCES "public"."assets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "variables" ADD CONSTRAINT "variables_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recovery_codes" ADD CONSTRAINT "recovery_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_projects" ADD CONSTRAINT "user_projects_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_projects" ADD CONSTRAINT "user_projects_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "downtime" ADD CONSTRAINT "downtime_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "downtime" ADD CONSTRAINT "downtime_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lab_results" ADD CONSTRAINT "lab_results_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lab_results" ADD CONSTRAINT "lab_results_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter_readings" ADD CONSTRAINT "meter_readings_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter_readings" ADD CONSTRAINT "meter_readings_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter_readings" ADD CONSTRAINT "meter_readings_meter_id_assets_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."assets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "movements" ADD CONSTRAINT "movements_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "movements" ADD CONSTRAINT "movements_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "well_tests" ADD CONSTRAINT "well_tests_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "well_tests" ADD CONSTRAINT "well_tests_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "well_tests" ADD CONSTRAINT "well_tests_asset_id_assets_id_fk" FOREIGN KEY ("asset_id") REFERENCES "public"."assets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "anh_reports" ADD CONSTRAINT "anh_reports_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "anh_reports" ADD CONSTRAINT "anh_reports_submitted_by_users_id_fk" FOREIGN KEY ("submitted_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mqtt_credentials" ADD CONSTRAINT "mqtt_credentials_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mqtt_credentials" ADD CONSTRAINT "mqtt_credentials_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sparkplug_nodes" ADD CONSTRAINT "sparkplug_nodes_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telemetry_series" ADD CONSTRAINT "telemetry_series_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "telemetry_series" ADD CONSTRAINT "telemetry_series_asset_id_assets_id_fk" FOREIGN KEY ("asset_id") REFERENCES "public"."assets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_logs_project_ts_idx" ON "agent_logs" USING btree ("project_id","timestamp");--> statement-breakpoint
CREATE INDEX "deployments_project_idx" ON "deployments" USING btree ("project_id","version");--> statement-breakpoint
CREATE INDEX "enrollment_codes_project_idx" ON "enrollment_codes" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "alarm_events_alarm_idx" ON "alarm_events" USING btree ("alarm_id");--> statement-breakpoint
CREATE INDEX "alarms_project_open_idx" ON "alarms" USING btree ("project_id","active","acknowledged");--> statement-breakpoint
CREATE INDEX "alarms_rule_idx" ON "alarms" USING btree ("rule_id");--> statement-breakpoint
CREATE INDEX "alert_rules_project_idx" ON "alert_rules" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "audit_log_project_at_idx" ON "audit_log" USING btree ("project_id","at");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_project_period_uq" ON "invoices" USING btree ("project_id","period");--> statement-breakpoint
CREATE INDEX "installer_builds_project_idx" ON "installer_builds" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "installer_builds_one_active_uq" ON "installer_builds" USING btree ("project_id") WHERE status in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "installer_builds_status_idx" ON "installer_builds" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "assets_project_idx" ON "assets" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "devices_asset_idx" ON "devices" USING btree ("asset_id");--> statement-breakpoint
CREATE UNIQUE INDEX "variables_device_alias_uq" ON "variables" USING btree ("device_id","alias");--> statement-breakpoint
CREATE INDEX "recovery_codes_user_idx" ON "recovery_codes" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "refresh_tokens_session_idx" ON "refresh_tokens" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "user_projects_project_idx" ON "user_projects" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "downtime_project_idx" ON "downtime" USING btree ("project_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "downtime_supersedes_uq" ON "downtime" USING btree ("supersedes");--> statement-breakpoint
CREATE INDEX "lab_results_project_idx" ON "lab_results" USING btree ("project_id","sample_date");--> statement-breakpoint
CREATE UNIQUE INDEX "lab_results_supersedes_uq" ON "lab_results" USING btree ("supersedes");--> statement-breakpoint
CREATE INDEX "meter_readings_project_idx" ON "meter_readings" USING btree ("project_id","read_at");--> statement-breakpoint
CREATE UNIQUE INDEX "meter_readings_supersedes_uq" ON "meter_readings" USING btree ("supersedes");--> statement-breakpoint
CREATE INDEX "movements_project_ts_idx" ON "movements" USING btree ("project_id","timestamp");--> statement-breakpoint
CREATE UNIQUE INDEX "movements_supersedes_uq" ON "movements" USING btree ("supersedes");--> statement-breakpoint
CREATE INDEX "well_tests_project_idx" ON "well_tests" USING btree ("project_id","test_date");--> statement-breakpoint
CREATE UNIQUE INDEX "well_tests_supersedes_uq" ON "well_tests" USING btree ("supersedes");--> statement-breakpoint
CREATE UNIQUE INDEX "anh_reports_project_day_version_uq" ON "anh_reports" USING btree ("project_id","report_date","version");--> statement-breakpoint
CREATE INDEX "anh_reports_project_idx" ON "anh_reports" USING btree ("project_id","report_date");--> statement-breakpoint
CREATE UNIQUE INDEX "mqtt_credentials_username_uq" ON "mqtt_credentials" USING btree ("username");--> statement-breakpoint
CREATE INDEX "mqtt_credentials_project_idx" ON "mqtt_credentials" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "telemetry_series_asset_variable_uq" ON "telemetry_series" USING btree ("asset_id","variable");--> statement-breakpoint
CREATE INDEX "telemetry_series_project_idx" ON "telemetry_series" USING btree ("project_id");
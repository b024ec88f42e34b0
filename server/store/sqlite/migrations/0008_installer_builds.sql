CREATE TABLE `installer_builds` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`status` text NOT NULL,
	`rebuild` integer NOT NULL,
	`server_url` text NOT NULL,
	`agent_version` text,
	`inputs_sha256` text,
	`enrollment_code_id` text,
	`file` text,
	`bytes` integer,
	`sha256` text,
	`log` text DEFAULT '' NOT NULL,
	`requested_by` text,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`enrollment_code_id`) REFERENCES `enrollment_codes`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`requested_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `installer_builds_project_idx` ON `installer_builds` (`project_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `installer_builds_one_active_uq` ON `installer_builds` (`project_id`) WHERE status in ('queued', 'running');--> statement-breakpoint
CREATE INDEX `installer_builds_status_idx` ON `installer_builds` (`status`,`created_at`);
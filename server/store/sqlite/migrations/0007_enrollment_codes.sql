CREATE TABLE `enrollment_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`code_hash` text NOT NULL,
	`purpose` text NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `enrollment_codes_code_hash_unique` ON `enrollment_codes` (`code_hash`);--> statement-breakpoint
CREATE INDEX `enrollment_codes_project_idx` ON `enrollment_codes` (`project_id`,`created_at`);
-- Raw readings and rollups are clustered on (series_id, ts|bucket) with no separate rowid
-- b-tree: one row is about 20 bytes on disk instead of twice that (DESIGN.md, Storage).
-- The tables are empty when this runs (created by 0000).
DROP TABLE `telemetry_raw`;
--> statement-breakpoint
CREATE TABLE `telemetry_raw` (
	`series_id` integer NOT NULL,
	`ts` integer NOT NULL,
	`value` real NOT NULL,
	PRIMARY KEY(`series_id`, `ts`)
) WITHOUT ROWID;
--> statement-breakpoint
DROP TABLE `telemetry_rollup_5m`;
--> statement-breakpoint
CREATE TABLE `telemetry_rollup_5m` (
	`series_id` integer NOT NULL,
	`bucket` integer NOT NULL,
	`count` integer NOT NULL,
	`sum` real NOT NULL,
	`min` real NOT NULL,
	`max` real NOT NULL,
	PRIMARY KEY(`series_id`, `bucket`)
) WITHOUT ROWID;
--> statement-breakpoint
DROP TABLE `telemetry_rollup_1h`;
--> statement-breakpoint
CREATE TABLE `telemetry_rollup_1h` (
	`series_id` integer NOT NULL,
	`bucket` integer NOT NULL,
	`count` integer NOT NULL,
	`sum` real NOT NULL,
	`min` real NOT NULL,
	`max` real NOT NULL,
	PRIMARY KEY(`series_id`, `bucket`)
) WITHOUT ROWID;
--> statement-breakpoint
-- Raw rows carry no foreign key (it would cost a lookup per inserted point); a series'
-- readings and rollups go with it, and a series goes with its asset or project.
CREATE TRIGGER `telemetry_series_cascade` AFTER DELETE ON `telemetry_series` BEGIN
	DELETE FROM `telemetry_raw` WHERE `series_id` = OLD.`id`;
	DELETE FROM `telemetry_rollup_5m` WHERE `series_id` = OLD.`id`;
	DELETE FROM `telemetry_rollup_1h` WHERE `series_id` = OLD.`id`;
END;

CREATE TABLE `telemetry_packed` (
	`series_id` integer NOT NULL,
	`first_ts` integer NOT NULL,
	`last_ts` integer NOT NULL,
	`count` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`series_id`, `first_ts`)
);
--> statement-breakpoint
-- Blocks carry no foreign key, like raw rows: they go with their series (see 0001).
DROP TRIGGER `telemetry_series_cascade`;
--> statement-breakpoint
CREATE TRIGGER `telemetry_series_cascade` AFTER DELETE ON `telemetry_series` BEGIN
	DELETE FROM `telemetry_raw` WHERE `series_id` = OLD.`id`;
	DELETE FROM `telemetry_packed` WHERE `series_id` = OLD.`id`;
	DELETE FROM `telemetry_rollup_5m` WHERE `series_id` = OLD.`id`;
	DELETE FROM `telemetry_rollup_1h` WHERE `series_id` = OLD.`id`;
END;

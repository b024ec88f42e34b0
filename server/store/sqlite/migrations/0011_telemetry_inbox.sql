CREATE TABLE `telemetry_inbox` (
	`series_id` integer NOT NULL,
	`ts` integer NOT NULL,
	`value` real NOT NULL
);
--> statement-breakpoint
-- Inbox rows go with their series, like raw rows and blocks (see 0001, 0010).
DROP TRIGGER `telemetry_series_cascade`;
--> statement-breakpoint
CREATE TRIGGER `telemetry_series_cascade` AFTER DELETE ON `telemetry_series` BEGIN
	DELETE FROM `telemetry_inbox` WHERE `series_id` = OLD.`id`;
	DELETE FROM `telemetry_raw` WHERE `series_id` = OLD.`id`;
	DELETE FROM `telemetry_packed` WHERE `series_id` = OLD.`id`;
	DELETE FROM `telemetry_rollup_5m` WHERE `series_id` = OLD.`id`;
	DELETE FROM `telemetry_rollup_1h` WHERE `series_id` = OLD.`id`;
END;

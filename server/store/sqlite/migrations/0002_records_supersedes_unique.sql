CREATE UNIQUE INDEX `downtime_supersedes_uq` ON `downtime` (`supersedes`);--> statement-breakpoint
CREATE UNIQUE INDEX `lab_results_supersedes_uq` ON `lab_results` (`supersedes`);--> statement-breakpoint
CREATE UNIQUE INDEX `meter_readings_supersedes_uq` ON `meter_readings` (`supersedes`);--> statement-breakpoint
CREATE UNIQUE INDEX `movements_supersedes_uq` ON `movements` (`supersedes`);--> statement-breakpoint
CREATE UNIQUE INDEX `well_tests_supersedes_uq` ON `well_tests` (`supersedes`);
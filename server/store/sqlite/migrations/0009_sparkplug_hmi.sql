CREATE TABLE `mqtt_credentials` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`username` text NOT NULL,
	`password_hash` text NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mqtt_credentials_username_uq` ON `mqtt_credentials` (`username`);--> statement-breakpoint
CREATE INDEX `mqtt_credentials_project_idx` ON `mqtt_credentials` (`project_id`);--> statement-breakpoint
CREATE TABLE `sparkplug_nodes` (
	`project_id` text PRIMARY KEY NOT NULL,
	`bd_seq` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Issue 11: every project gets a slug (its Sparkplug group_id and UNS level), derived from its
-- name as shared/field/slug.ts derives it: accents dropped (those of Spanish and Portuguese here),
-- lower-cased, every run of other characters one "-", at most 64 characters. A name without a
-- letter or digit gives project-<first 8 of the id>; a slug an older project already has gets
-- -<first 8 of the id> appended.
ALTER TABLE `projects` ADD `slug` text NOT NULL DEFAULT '';--> statement-breakpoint
UPDATE `projects` SET `slug` = (
  WITH RECURSIVE `walk`(`pos`, `src`, `m`, `out`) AS (
    SELECT 1, `projects`.`name`, CASE
        WHEN substr(`projects`.`name`, 1, 1) BETWEEN 'a' AND 'z' OR substr(`projects`.`name`, 1, 1) BETWEEN '0' AND '9' THEN substr(`projects`.`name`, 1, 1)
        WHEN substr(`projects`.`name`, 1, 1) BETWEEN 'A' AND 'Z' THEN lower(substr(`projects`.`name`, 1, 1))
        WHEN substr(`projects`.`name`, 1, 1) = '' THEN '-'
        WHEN instr('áàâäãÁÀÂÄÃ', substr(`projects`.`name`, 1, 1)) > 0 THEN 'a'
        WHEN instr('éèêëÉÈÊË', substr(`projects`.`name`, 1, 1)) > 0 THEN 'e'
        WHEN instr('íìîïÍÌÎÏ', substr(`projects`.`name`, 1, 1)) > 0 THEN 'i'
        WHEN instr('óòôöõÓÒÔÖÕ', substr(`projects`.`name`, 1, 1)) > 0 THEN 'o'
        WHEN instr('úùûüÚÙÛÜ', substr(`projects`.`name`, 1, 1)) > 0 THEN 'u'
        WHEN instr('ñÑ', substr(`projects`.`name`, 1, 1)) > 0 THEN 'n'
        WHEN instr('çÇ', substr(`projects`.`name`, 1, 1)) > 0 THEN 'c'
        ELSE '-'
      END, ''
    UNION ALL
    SELECT `pos` + 1, `src`, CASE
        WHEN substr(`src`, `pos` + 1, 1) BETWEEN 'a' AND 'z' OR substr(`src`, `pos` + 1, 1) BETWEEN '0' AND '9' THEN substr(`src`, `pos` + 1, 1)
        WHEN substr(`src`, `pos` + 1, 1) BETWEEN 'A' AND 'Z' THEN lower(substr(`src`, `pos` + 1, 1))
        WHEN substr(`src`, `pos` + 1, 1) = '' THEN '-'
        WHEN instr('áàâäãÁÀÂÄÃ', substr(`src`, `pos` + 1, 1)) > 0 THEN 'a'
        WHEN instr('éèêëÉÈÊË', substr(`src`, `pos` + 1, 1)) > 0 THEN 'e'
        WHEN instr('íìîïÍÌÎÏ', substr(`src`, `pos` + 1, 1)) > 0 THEN 'i'
        WHEN instr('óòôöõÓÒÔÖÕ', substr(`src`, `pos` + 1, 1)) > 0 THEN 'o'
        WHEN instr('úùûüÚÙÛÜ', substr(`src`, `pos` + 1, 1)) > 0 THEN 'u'
        WHEN instr('ñÑ', substr(`src`, `pos` + 1, 1)) > 0 THEN 'n'
        WHEN instr('çÇ', substr(`src`, `pos` + 1, 1)) > 0 THEN 'c'
        ELSE '-'
      END,
      CASE WHEN `m` = '-' AND (`out` = '' OR substr(`out`, -1) = '-') THEN `out` ELSE `out` || `m` END
    FROM `walk` WHERE `pos` <= length(`src`)
  )
  SELECT trim(substr(`out`, 1, 64), '-') FROM `walk` ORDER BY `pos` DESC LIMIT 1
);--> statement-breakpoint
UPDATE `projects` SET `slug` = 'project-' || substr(`id`, 1, 8) WHERE `slug` = '';--> statement-breakpoint
UPDATE `projects` SET `slug` = trim(substr(`slug`, 1, 55), '-') || '-' || substr(`id`, 1, 8)
WHERE EXISTS (
  SELECT 1 FROM `projects` AS `older`
  WHERE `older`.`slug` = `projects`.`slug`
    AND (`older`.`created_at` < `projects`.`created_at`
      OR (`older`.`created_at` = `projects`.`created_at` AND `older`.`id` < `projects`.`id`))
);--> statement-breakpoint
ALTER TABLE `projects` ADD `sparkplug_edge_node_id` text DEFAULT 'agent' NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `sparkplug_primary_host_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `projects_slug_uq` ON `projects` (`slug`);
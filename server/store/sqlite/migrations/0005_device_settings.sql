ALTER TABLE `devices` ADD `settings` text;--> statement-breakpoint
ALTER TABLE `devices` ADD `settings_password_encrypted` blob;
-- The Sparkplug host id an HMI login may publish STATE for (issue 28); null: none, as every existing login.
ALTER TABLE `mqtt_credentials` ADD `primary_host_id` text;--> statement-breakpoint
CREATE INDEX `mqtt_credentials_primary_host_idx` ON `mqtt_credentials` (`primary_host_id`);

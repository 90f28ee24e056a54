ALTER TABLE `merchants` ADD `prev_api_key` text;--> statement-breakpoint
ALTER TABLE `merchants` ADD `prev_api_key_until` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `merchants_prev_api_key_unique` ON `merchants` (`prev_api_key`);
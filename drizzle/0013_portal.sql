CREATE TABLE `portal_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`return_url` text,
	`expires_at` integer NOT NULL,
	`card_checks` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `portal_sessions_expires` ON `portal_sessions` (`expires_at`);--> statement-breakpoint
ALTER TABLE `merchants` ADD `portal_actions` text DEFAULT 'cancel,update-card' NOT NULL;
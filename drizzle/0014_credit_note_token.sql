ALTER TABLE `credit_notes` ADD `token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `credit_notes_token_unique` ON `credit_notes` (`token`);
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_cards` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`pan_enc` text,
	`channel` text DEFAULT 'sandbox' NOT NULL,
	`stripe_customer_id` text,
	`stripe_payment_method_id` text,
	`bin` text NOT NULL,
	`last4` text NOT NULL,
	`brand` text NOT NULL,
	`exp_month` integer NOT NULL,
	`exp_year` integer NOT NULL,
	`holder_name` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_cards`("id", "merchant_id", "pan_enc", "bin", "last4", "brand", "exp_month", "exp_year", "holder_name", "created_at") SELECT "id", "merchant_id", "pan_enc", "bin", "last4", "brand", "exp_month", "exp_year", "holder_name", "created_at" FROM `cards`;--> statement-breakpoint
DROP TABLE `cards`;--> statement-breakpoint
ALTER TABLE `__new_cards` RENAME TO `cards`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
ALTER TABLE `merchants` ADD `channel` text DEFAULT 'sandbox' NOT NULL;--> statement-breakpoint
ALTER TABLE `merchants` ADD `stripe_secret_key_enc` text;--> statement-breakpoint
ALTER TABLE `merchants` ADD `stripe_webhook_secret_enc` text;--> statement-breakpoint
CREATE INDEX `transactions_in_flight` ON `transactions` (`updated_at`) WHERE status = 100000 and channel_ref is not null;
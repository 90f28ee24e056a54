CREATE TABLE `customer_emails` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`merchant_id` text NOT NULL,
	`kind` text NOT NULL,
	`recipient` text NOT NULL,
	`subscription_id` text,
	`transaction_id` text,
	`record_id` text,
	`dedupe_key` text,
	`details` text NOT NULL,
	`status` text DEFAULT 'PENDING' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`lease_owner` text,
	`lease_until` integer,
	`created_at` integer NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customer_emails_id_unique` ON `customer_emails` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `customer_emails_dedupe_key_unique` ON `customer_emails` (`dedupe_key`);--> statement-breakpoint
CREATE INDEX `customer_emails_due` ON `customer_emails` (`next_attempt_at`,`seq`) WHERE status = 'PENDING';--> statement-breakpoint
CREATE INDEX `customer_emails_merchant` ON `customer_emails` (`merchant_id`,`seq`);--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `email` text;
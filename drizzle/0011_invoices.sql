CREATE TABLE `credit_notes` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`number` text NOT NULL,
	`refund_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`invoice_id` text,
	`invoice_number` text,
	`currency` text NOT NULL,
	`amount` integer NOT NULL,
	`issued_at` integer NOT NULL,
	`seller_name` text NOT NULL,
	`legal_name` text,
	`address` text,
	`tax_id` text,
	`support_email` text,
	`customer` text NOT NULL,
	`document` text NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`refund_id`) REFERENCES `refunds`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`transaction_id`) REFERENCES `transactions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `credit_notes_refund_id_unique` ON `credit_notes` (`refund_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `credit_notes_merchant_number` ON `credit_notes` (`merchant_id`,`number`);--> statement-breakpoint
CREATE INDEX `credit_notes_invoice` ON `credit_notes` (`invoice_id`,`issued_at`);--> statement-breakpoint
CREATE INDEX `credit_notes_transaction` ON `credit_notes` (`transaction_id`);--> statement-breakpoint
CREATE TABLE `invoices` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`number` text NOT NULL,
	`token` text NOT NULL,
	`transaction_id` text NOT NULL,
	`subscription_id` text,
	`user_id` text,
	`currency` text NOT NULL,
	`total` integer NOT NULL,
	`issued_at` integer NOT NULL,
	`seller_name` text NOT NULL,
	`legal_name` text,
	`address` text,
	`tax_id` text,
	`support_email` text,
	`customer` text NOT NULL,
	`document` text NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`transaction_id`) REFERENCES `transactions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_token_unique` ON `invoices` (`token`);--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_transaction_id_unique` ON `invoices` (`transaction_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_merchant_number` ON `invoices` (`merchant_id`,`number`);--> statement-breakpoint
CREATE INDEX `invoices_merchant_issued` ON `invoices` (`merchant_id`,`issued_at`);--> statement-breakpoint
CREATE INDEX `invoices_subscription` ON `invoices` (`subscription_id`,`issued_at`);--> statement-breakpoint
CREATE INDEX `invoices_merchant_user` ON `invoices` (`merchant_id`,`user_id`,`issued_at`);
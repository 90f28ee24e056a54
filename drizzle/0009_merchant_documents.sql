ALTER TABLE `merchants` ADD `legal_name` text;--> statement-breakpoint
ALTER TABLE `merchants` ADD `address` text;--> statement-breakpoint
ALTER TABLE `merchants` ADD `tax_id` text;--> statement-breakpoint
ALTER TABLE `merchants` ADD `support_email` text;--> statement-breakpoint
ALTER TABLE `merchants` ADD `email_from` text;--> statement-breakpoint
ALTER TABLE `merchants` ADD `invoice_prefix` text DEFAULT 'INV' NOT NULL;--> statement-breakpoint
ALTER TABLE `merchants` ADD `invoice_next` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `merchants` ADD `credit_note_next` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `merchants` ADD `customer_emails` text DEFAULT 'on' NOT NULL;
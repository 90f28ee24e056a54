ALTER TABLE `subscriptions` ADD `credit` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `pending_plan_id` text REFERENCES plans(id);--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `card_update_token` text;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `card_update_expires_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `subscriptions_card_update_token` ON `subscriptions` (`card_update_token`) WHERE card_update_token IS NOT NULL;--> statement-breakpoint
ALTER TABLE `billing_records` ADD `credit_applied` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `billing_records` ADD `credit_granted` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `billing_records` ADD `plan_id` text;--> statement-breakpoint
ALTER TABLE `transactions` ADD `card_id` text;
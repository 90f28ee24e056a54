ALTER TABLE `subscriptions` ADD `credit` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `pending_plan_id` text REFERENCES plans(id);--> statement-breakpoint
ALTER TABLE `billing_records` ADD `credit_applied` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `billing_records` ADD `plan_id` text;
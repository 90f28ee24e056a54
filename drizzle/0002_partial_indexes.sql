DROP INDEX `transactions_page_token`;--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_page_token` ON `transactions` (`page_token`) WHERE page_token IS NOT NULL;--> statement-breakpoint
DROP INDEX `outbox_subscription`;--> statement-breakpoint
CREATE INDEX `outbox_subscription` ON `outbox_events` (`subscription_id`,`seq`) WHERE subscription_id IS NOT NULL;
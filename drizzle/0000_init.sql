CREATE TABLE `merchants` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`api_key` text NOT NULL,
	`secret_enc` text NOT NULL,
	`prev_secret_enc` text,
	`prev_secret_until` integer,
	`signature_version` integer DEFAULT 2 NOT NULL,
	`notify_url` text,
	`status` text DEFAULT 'ACTIVE' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `merchants_api_key_unique` ON `merchants` (`api_key`);--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `plans` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`price` integer NOT NULL,
	`currency` text NOT NULL,
	`cycle_type` text NOT NULL,
	`cycle_length` integer NOT NULL,
	`trial_days` integer DEFAULT 0 NOT NULL,
	`max_subscriptions` integer DEFAULT 0 NOT NULL,
	`current_subscriptions` integer DEFAULT 0 NOT NULL,
	`status` text DEFAULT 'ACTIVE' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `plans_merchant_created` ON `plans` (`merchant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `cards` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`pan_enc` text NOT NULL,
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
CREATE TABLE `subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`merchant_id` text NOT NULL,
	`plan_id` text NOT NULL,
	`user_id` text NOT NULL,
	`card_id` text,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`cycle_type` text NOT NULL,
	`cycle_length` integer NOT NULL,
	`status` text NOT NULL,
	`anchor_time` integer NOT NULL,
	`paid_through` integer,
	`start_time` integer NOT NULL,
	`end_time` integer,
	`cancel_time` integer,
	`notify_url` text,
	`initial_transaction_id` text,
	`billing_count` integer DEFAULT 0 NOT NULL,
	`failed_count` integer DEFAULT 0 NOT NULL,
	`total_paid` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`plan_id`) REFERENCES `plans`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscriptions_code_unique` ON `subscriptions` (`code`);--> statement-breakpoint
CREATE INDEX `subscriptions_merchant_user` ON `subscriptions` (`merchant_id`,`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `subscriptions_plan` ON `subscriptions` (`plan_id`);--> statement-breakpoint
CREATE TABLE `billing_records` (
	`id` text PRIMARY KEY NOT NULL,
	`subscription_id` text NOT NULL,
	`merchant_id` text NOT NULL,
	`billing_type` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`scheduled_time` integer NOT NULL,
	`actual_time` integer,
	`status` text NOT NULL,
	`transaction_id` text,
	`fail_reason` text,
	`retry_count` integer DEFAULT 0 NOT NULL,
	`cycle_index` integer DEFAULT 0 NOT NULL,
	`lease_owner` text,
	`lease_until` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`subscription_id`) REFERENCES `subscriptions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `billing_records_due` ON `billing_records` (`scheduled_time`) WHERE status = 'PENDING';--> statement-breakpoint
CREATE INDEX `billing_records_subscription` ON `billing_records` (`subscription_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`merchant_id` text NOT NULL,
	`scope` text NOT NULL,
	`request_id` text NOT NULL,
	`request_hash` text NOT NULL,
	`resource_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`merchant_id`, `scope`, `request_id`)
);
--> statement-breakpoint
CREATE TABLE `refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`status` text NOT NULL,
	`channel_ref` text,
	`fail_reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`transaction_id`) REFERENCES `transactions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `refunds_transaction` ON `refunds` (`transaction_id`);--> statement-breakpoint
CREATE TABLE `tracking_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`tracking_no` text NOT NULL,
	`tracking_channel` text NOT NULL,
	`track_url` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`transaction_id`) REFERENCES `transactions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tracking_transaction_no` ON `tracking_entries` (`transaction_id`,`tracking_no`);--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`relation_id` text,
	`request_id` text,
	`payment_type` text NOT NULL,
	`status` integer NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`txn_amount` integer,
	`txn_currency` text,
	`refunded_amount` integer DEFAULT 0 NOT NULL,
	`refund_reserved` integer DEFAULT 0 NOT NULL,
	`fail_reason` text,
	`subscription_id` text,
	`billing_record_id` text,
	`plan_id` text,
	`user_id` text,
	`card_bin` text,
	`card_last4` text,
	`card_brand` text,
	`client_ip` text,
	`return_url` text,
	`failed_url` text,
	`cancel_url` text,
	`notify_url` text,
	`billing_address` text,
	`shipping_address` text,
	`items` text,
	`channel` text DEFAULT 'sandbox' NOT NULL,
	`channel_ref` text,
	`page_token` text,
	`page_expires_at` integer,
	`checkout_declines` integer DEFAULT 0 NOT NULL,
	`txn_time` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_merchant_relation` ON `transactions` (`merchant_id`,`relation_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_page_token` ON `transactions` (`page_token`);--> statement-breakpoint
CREATE INDEX `transactions_merchant_created` ON `transactions` (`merchant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_open_pages` ON `transactions` (`page_expires_at`) WHERE status in (100040, 100050);--> statement-breakpoint
CREATE TABLE `outbox_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`merchant_id` text NOT NULL,
	`kind` text NOT NULL,
	`event_type` text NOT NULL,
	`transaction_id` text,
	`subscription_id` text,
	`notify_url` text,
	`payload` text NOT NULL,
	`status` text DEFAULT 'PENDING' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_http_status` integer,
	`last_error` text,
	`lease_owner` text,
	`lease_until` integer,
	`created_at` integer NOT NULL,
	`delivered_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `outbox_events_id_unique` ON `outbox_events` (`id`);--> statement-breakpoint
CREATE INDEX `outbox_due` ON `outbox_events` (`next_attempt_at`,`seq`) WHERE status = 'PENDING';--> statement-breakpoint
CREATE INDEX `outbox_subscription` ON `outbox_events` (`subscription_id`,`seq`);--> statement-breakpoint
CREATE TABLE `sandbox_charges` (
	`id` text PRIMARY KEY NOT NULL,
	`idempotency_key` text NOT NULL,
	`kind` text NOT NULL,
	`parent_id` text,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`card_bin` text,
	`card_last4` text,
	`customer_present` integer NOT NULL,
	`outcome` text NOT NULL,
	`decline_code` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sandbox_charges_idempotency_key_unique` ON `sandbox_charges` (`idempotency_key`);
CREATE TABLE `coupons` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` text NOT NULL,
	`code` text NOT NULL,
	`percent_basis_points` integer,
	`amount_off` integer,
	`duration` text NOT NULL,
	`cycles` integer,
	`redeem_by` integer,
	`max_redemptions` integer,
	`redemptions` integer DEFAULT 0 NOT NULL,
	`plan_ids` text,
	`status` text DEFAULT 'ACTIVE' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `coupons_merchant_code` ON `coupons` (`merchant_id`,`code`);--> statement-breakpoint
CREATE INDEX `coupons_merchant_created` ON `coupons` (`merchant_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `billing_records` ADD `coupon_code` text;--> statement-breakpoint
ALTER TABLE `billing_records` ADD `discount_amount` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `coupon_id` text REFERENCES coupons(id);--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `coupon_code` text;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `coupon_taken_at` integer;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `coupon_cycles_used` integer DEFAULT 0 NOT NULL;
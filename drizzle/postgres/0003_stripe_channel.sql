ALTER TABLE "cards" ALTER COLUMN "pan_enc" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "channel" text DEFAULT 'sandbox' NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "stripe_secret_key_enc" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "stripe_webhook_secret_enc" text;--> statement-breakpoint
ALTER TABLE "cards" ADD COLUMN "channel" text DEFAULT 'sandbox' NOT NULL;--> statement-breakpoint
ALTER TABLE "cards" ADD COLUMN "stripe_customer_id" text;--> statement-breakpoint
ALTER TABLE "cards" ADD COLUMN "stripe_payment_method_id" text;--> statement-breakpoint
CREATE INDEX "transactions_in_flight" ON "transactions" USING btree ("updated_at") WHERE status = 100000 and channel_ref is not null;
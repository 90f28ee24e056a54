ALTER TABLE "subscriptions" ADD COLUMN "card_update_token" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "card_update_expires_at" bigint;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "card_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "subscriptions_card_update_token" ON "subscriptions" USING btree ("card_update_token") WHERE card_update_token IS NOT NULL;
ALTER TABLE "subscriptions" ADD COLUMN "credit" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "pending_plan_id" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "card_update_token" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "card_update_expires_at" bigint;--> statement-breakpoint
ALTER TABLE "billing_records" ADD COLUMN "credit_applied" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "billing_records" ADD COLUMN "credit_granted" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "billing_records" ADD COLUMN "plan_id" text;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "card_id" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_pending_plan_id_plans_id_fk" FOREIGN KEY ("pending_plan_id") REFERENCES "public"."plans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "subscriptions_card_update_token" ON "subscriptions" USING btree ("card_update_token") WHERE card_update_token IS NOT NULL;
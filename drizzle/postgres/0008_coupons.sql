CREATE TABLE "coupons" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"code" text NOT NULL,
	"percent_basis_points" integer,
	"amount_off" bigint,
	"duration" text NOT NULL,
	"cycles" integer,
	"redeem_by" bigint,
	"max_redemptions" integer,
	"redemptions" integer DEFAULT 0 NOT NULL,
	"plan_ids" text,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "billing_records" ADD COLUMN "coupon_code" text;--> statement-breakpoint
ALTER TABLE "billing_records" ADD COLUMN "discount_amount" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "coupon_id" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "coupon_code" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "coupon_taken_at" bigint;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "coupon_cycles_used" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "coupons" ADD CONSTRAINT "coupons_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "coupons_merchant_code" ON "coupons" USING btree ("merchant_id","code");--> statement-breakpoint
CREATE INDEX "coupons_merchant_created" ON "coupons" USING btree ("merchant_id","created_at");--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_coupon_id_coupons_id_fk" FOREIGN KEY ("coupon_id") REFERENCES "public"."coupons"("id") ON DELETE no action ON UPDATE no action;
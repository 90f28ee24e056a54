CREATE TABLE "portal_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"user_id" text NOT NULL,
	"return_url" text,
	"expires_at" bigint NOT NULL,
	"card_checks" integer DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "portal_actions" text DEFAULT 'cancel,update-card' NOT NULL;--> statement-breakpoint
ALTER TABLE "portal_sessions" ADD CONSTRAINT "portal_sessions_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "portal_sessions_expires" ON "portal_sessions" USING btree ("expires_at");
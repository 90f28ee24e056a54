ALTER TABLE "merchants" ADD COLUMN "prev_api_key" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "prev_api_key_until" bigint;--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_prev_api_key_unique" UNIQUE("prev_api_key");
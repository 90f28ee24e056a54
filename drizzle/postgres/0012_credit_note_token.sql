ALTER TABLE "credit_notes" ADD COLUMN "token" text;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_token_unique" UNIQUE("token");
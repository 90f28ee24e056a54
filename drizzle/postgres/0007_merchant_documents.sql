ALTER TABLE "merchants" ADD COLUMN "legal_name" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "address" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "tax_id" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "support_email" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "email_from" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "invoice_prefix" text DEFAULT 'INV' NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "invoice_next" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "credit_note_next" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "customer_emails" text DEFAULT 'on' NOT NULL;
CREATE TABLE "credit_notes" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"number" text NOT NULL,
	"refund_id" text NOT NULL,
	"transaction_id" text NOT NULL,
	"invoice_id" text,
	"invoice_number" text,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"issued_at" bigint NOT NULL,
	"seller_name" text NOT NULL,
	"legal_name" text,
	"address" text,
	"tax_id" text,
	"support_email" text,
	"customer" text NOT NULL,
	"document" text NOT NULL,
	CONSTRAINT "credit_notes_refund_id_unique" UNIQUE("refund_id")
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"number" text NOT NULL,
	"token" text NOT NULL,
	"transaction_id" text NOT NULL,
	"subscription_id" text,
	"user_id" text,
	"currency" text NOT NULL,
	"total" bigint NOT NULL,
	"issued_at" bigint NOT NULL,
	"seller_name" text NOT NULL,
	"legal_name" text,
	"address" text,
	"tax_id" text,
	"support_email" text,
	"customer" text NOT NULL,
	"document" text NOT NULL,
	CONSTRAINT "invoices_token_unique" UNIQUE("token"),
	CONSTRAINT "invoices_transaction_id_unique" UNIQUE("transaction_id")
);
--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_refund_id_refunds_id_fk" FOREIGN KEY ("refund_id") REFERENCES "public"."refunds"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "credit_notes_merchant_number" ON "credit_notes" USING btree ("merchant_id","number");--> statement-breakpoint
CREATE INDEX "credit_notes_invoice" ON "credit_notes" USING btree ("invoice_id","issued_at");--> statement-breakpoint
CREATE INDEX "credit_notes_transaction" ON "credit_notes" USING btree ("transaction_id");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_merchant_number" ON "invoices" USING btree ("merchant_id","number");--> statement-breakpoint
CREATE INDEX "invoices_merchant_issued" ON "invoices" USING btree ("merchant_id","issued_at");--> statement-breakpoint
CREATE INDEX "invoices_subscription" ON "invoices" USING btree ("subscription_id","issued_at");--> statement-breakpoint
CREATE INDEX "invoices_merchant_user" ON "invoices" USING btree ("merchant_id","user_id","issued_at");
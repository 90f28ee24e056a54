ALTER TABLE "invoices" DROP CONSTRAINT "invoices_merchant_id_merchants_id_fk";
--> statement-breakpoint
ALTER TABLE "transactions" DROP CONSTRAINT "transactions_merchant_id_merchants_id_fk";

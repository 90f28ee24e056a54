DROP INDEX `billing_records_due`;--> statement-breakpoint
CREATE INDEX `billing_records_due` ON `billing_records` (`scheduled_time`,`id`) WHERE status = 'PENDING';
-- Subscriptions made before their invoices' customer was kept on them bill the customer of their first invoice, as before.
UPDATE subscriptions SET customer = (
  SELECT p.customer FROM invoices p WHERE p.subscription_id = subscriptions.id ORDER BY p.issued_at LIMIT 1
) WHERE EXISTS (SELECT 1 FROM invoices p WHERE p.subscription_id = subscriptions.id);

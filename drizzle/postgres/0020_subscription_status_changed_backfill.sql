-- Subscriptions from before status_changed_at take their last update as it, the best time known:
-- for a PAUSED one its pause, unless something else was changed on it after.
UPDATE subscriptions SET status_changed_at = updated_at WHERE status_changed_at IS NULL;

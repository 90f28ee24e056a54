/** Secret (sk_) and restricted (rk_) keys can call the API; a publishable key (pk_) cannot. */
export function keyShapeError(key: string): string | null {
  if (/^pk_(test|live)_/.test(key))
    return 'this is a publishable key (pk_…); paygate needs the secret key (sk_…) or a restricted key (rk_…)';
  if (/^whsec_/.test(key))
    return 'this is a webhook signing secret (whsec_…); give it as the webhook secret, and the secret key (sk_…) as the key';
  if (!/^(sk|rk)_(test|live)_[A-Za-z0-9]{8,}$/.test(key))
    return 'not a Stripe secret key (expected sk_live_…, sk_test_… or rk_…)';
  return null;
}

/**
 * A test-mode key (sk_test_…, rk_test_…) moves no real money. Anything else counts as live: a
 * key of an unknown shape is never taken for a test key.
 */
export function isTestModeKey(key: string): boolean {
  return /^(sk|rk)_test_/.test(key);
}

import type { Channel } from '../channel.js';
import type { StripeChannelOptions } from './channel.js';
import { parseStripeApiUrl } from './endpoint.js';

/**
 * One merchant's Stripe channel whose adapter (and the `stripe` package under it) is loaded and
 * made on the first call, not when the registry hands the channel out: a process that only
 * looks up a Stripe merchant, or only uses the sandbox, never loads it.
 */
export function deferredStripeChannel(opts: StripeChannelOptions): Channel {
  // A bad PAYGATE_STRIPE_API_URL is refused when the channel is handed out, as before.
  parseStripeApiUrl(opts.apiUrl);
  let made: Promise<Channel> | undefined;
  const channel = (): Promise<Channel> => {
    // loaded on first use: a sandbox-only process never needs it
    made ??= import('./channel.js').then((m) => m.createStripeChannel(opts));
    return made;
  };
  // Every optional method exists on the Stripe adapter: callers that test for them see them here.
  const call = async <R>(use: (c: Required<Channel>) => Promise<R>): Promise<R> =>
    use((await channel()) as Required<Channel>);
  return {
    name: 'stripe',
    charge: (req) => call((c) => c.charge(req)),
    completeAction: (ref, passed) => call((c) => c.completeAction(ref, passed)),
    refund: (req) => call((c) => c.refund(req)),
    retrieve: (ref) => call((c) => c.retrieve(ref)),
    resume: (req) => call((c) => c.resume(req)),
    retrieveRefund: (ref) => call((c) => c.retrieveRefund(ref)),
    abandon: (req) => call((c) => c.abandon(req)),
  };
}

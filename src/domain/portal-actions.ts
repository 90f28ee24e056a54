import { invalidParam } from './errors.js';

/** What a merchant may let subscribers do on the customer portal (SPEC §18). */
export const PORTAL_ACTIONS = ['cancel', 'pause', 'resume', 'update-card', 'change-plan'] as const;
export type PortalAction = (typeof PORTAL_ACTIONS)[number];

/** Cancelling and fixing a card are what a subscriber most needs without writing to the shop. */
export const DEFAULT_PORTAL_ACTIONS = 'cancel,update-card';

const isAction = (v: string): v is PortalAction => (PORTAL_ACTIONS as readonly string[]).includes(v);

/**
 * `--portal-actions cancel,pause`: a comma-separated list of PORTAL_ACTIONS, or `none` (or "") for
 * a read-only portal. Stored in the list's own order, each once.
 */
export function parsePortalActions(input: unknown): string {
  if (typeof input !== 'string') throw invalidParam('portalActions', 'must be a comma-separated list');
  const given = input
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (given.length === 1 && given[0] === 'none') return '';
  const unknown = given.filter((v) => !isAction(v));
  if (unknown.length > 0)
    throw invalidParam(
      'portalActions',
      `unknown action ${unknown.map((v) => JSON.stringify(v)).join(', ')}: choose from ${PORTAL_ACTIONS.join(', ')} (or none)`,
    );
  return PORTAL_ACTIONS.filter((a) => given.includes(a)).join(',');
}

/** The stored list as the set the portal checks. */
export function portalActionsOf(stored: string): ReadonlySet<PortalAction> {
  return new Set(stored.split(',').filter(isAction));
}

import { createPortalSession, PORTAL_SESSION_REQUEST } from '../../services/portal/index.js';
import type { ApiRoute } from '../api.js';
import { data } from '../openapi-schemas.js';

export const portalRoutes: ApiRoute[] = [
  {
    method: 'POST',
    url: '/portal/session',
    bucket: 'portal-session',
    limit: 300,
    by: 'merchantId',
    doc: {
      operationId: 'createPortalSession',
      tag: 'Portal',
      summary: 'A link to the customer portal for one user',
      description:
        'A hosted page where the user sees their subscriptions of this merchant (plan, amount, status, next charge, card on file, billing history) and does what the merchant allows (`merchant update --portal-actions`, default cancel and update-card). The link is bound to this merchant and this user, works for 60 minutes (expireTime), and is meant to be opened at once: make a new one each time the user asks. returnUrl is where the page links back to the shop. Any userId is accepted; one with no subscriptions sees that it has none.',
      request: { schema: PORTAL_SESSION_REQUEST, name: 'PortalSessionRequest' },
      data: data.portalLink,
      errors: [],
    },
    handle: (ctx, merchant, params) => createPortalSession(ctx, merchant.id, params),
  },
];

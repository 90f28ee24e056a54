import { index, instant, integer, table, text } from './define.js';

/**
 * Customer-portal links (SPEC §18). Only the SHA-256 of the token is kept: a copy of the database
 * (a backup, `db copy`) opens nobody's portal. A link is bound to one merchant and one user.
 */
export const portalSessions = table(
  'portal_sessions',
  {
    tokenHash: text().primaryKey(),
    merchantId: text().notNull().references('merchants'),
    userId: text().notNull(),
    /** Where the page's "Back to the shop" link leads. */
    returnUrl: text(),
    expiresAt: instant().notNull(),
    /** Cards checked through this link: bounded, so a link is no card-testing form (services/portal). */
    cardChecks: integer().notNull().default(0),
    createdAt: instant().notNull(),
  },
  { indexes: [index('portal_sessions_expires', ['expiresAt'])] },
);

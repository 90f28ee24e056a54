export {
  createPortalSession,
  openPortal,
  PortalExpired,
  PORTAL_SESSION_REQUEST,
  PORTAL_TTL_MS,
  type OpenPortal,
  type PortalLink,
} from './session.js';
export { type DocumentLink, portalView, type PortalSubscription, type PortalView } from './view.js';
export { changeFromPortal, changeOptions, shownQuote, QUOTE_TTL_MS, type ChangeOption } from './change.js';
export { cancelEndTime, cardFromPortal, ownSubscription, requireAllowed, transition } from './actions.js';
export { QuoteMoved } from '../plan-change/quote.js';
export { type CardCheckOutcome, type CardReturn, returnToPortal } from './card-return.js';

export { pauseSubscription } from './pause.js';
export { resumeSubscription } from './resume.js';
export { cancelSubscription, periodEnd } from './cancel.js';
export { endSubscription } from './end.js';
export {
  subscriptionDetail,
  listUserSubscriptions,
  listSubscriptions,
  listBillingRecords,
  requireSubscription,
  type BillingPage,
} from './queries.js';
export type { SubscriptionDetail, SubscriptionListItem, BillingRecordView } from './views.js';

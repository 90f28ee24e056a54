export { pauseSubscription } from './pause.js';
export { resumeSubscription } from './resume.js';
export { cancelSubscription, periodEnd } from './cancel.js';
export { endSubscription } from './end.js';
export { SUBSCRIPTION_UPDATE_REQUEST, updateSubscription } from './update.js';
export {
  subscriptionDetail,
  listUserSubscriptions,
  listSubscriptions,
  listBillingRecords,
  requireSubscription,
  BILLING_LIST_REQUEST,
  SUBSCRIPTION_ID_REQUEST,
  USER_LIST_REQUEST,
  type BillingPage,
} from './queries.js';
export type { SubscriptionDetail, SubscriptionListItem, BillingRecordView } from './views.js';

import type { ApiRoute } from '../api.js';
import { invoiceRoutes } from './invoices.js';
import { couponRoutes } from './coupons.js';
import { paymentRoutes } from './payments.js';
import { planRoutes } from './plans.js';
import { portalRoutes } from './portal.js';
import { subscriptionRoutes } from './subscriptions.js';
import { transactionRoutes } from './transactions.js';

/** Every signed API endpoint of SPEC §5. */
export const apiRoutes: readonly ApiRoute[] = [
  ...transactionRoutes,
  ...paymentRoutes,
  ...planRoutes,
  ...subscriptionRoutes,
  ...portalRoutes,
  ...invoiceRoutes,
  ...couponRoutes,
];

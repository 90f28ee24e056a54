import { refundTransaction } from '../../services/refund.js';
import { uploadTracking } from '../../services/tracking.js';
import type { ApiRoute } from '../api.js';
import { schemas } from '../openapi-schemas.js';

export const paymentRoutes: ApiRoute[] = [
  {
    method: 'POST',
    url: '/payment/:apiKey/refund',
    bucket: 'refund',
    limit: 30,
    by: 'apiKey',
    doc: {
      summary: 'Refund a paid transaction, fully or in part',
      fields: {
        transactionOrderId: schemas.string(200),
        relationId: schemas.string(200),
        refundAmount: schemas.amount,
        requestId: schemas.string(100),
      },
      required: ['refundAmount'],
      data: schemas.refund,
    },
    handle: (ctx, merchant, params) => refundTransaction(ctx, merchant, params),
  },
  {
    method: 'POST',
    url: '/payment/:apiKey/tracking/upload',
    bucket: 'tracking',
    limit: 60,
    by: 'apiKey',
    doc: {
      summary: 'Upload shipment tracking (1 to 500 entries, each judged alone)',
      fields: {
        trackingList: {
          type: 'array',
          minItems: 1,
          maxItems: 500,
          items: {
            type: 'object',
            properties: {
              orderId: schemas.string(200),
              relationId: schemas.string(200),
              trackingNo: schemas.string(100),
              trackingChannel: schemas.string(100),
              trackUrl: schemas.string(500),
            },
          },
        },
      },
      required: ['trackingList'],
      data: schemas.tracking,
    },
    handle: (ctx, merchant, params) => uploadTracking(ctx, merchant, params),
  },
];

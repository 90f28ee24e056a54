import { RESULT_CODES } from '../../domain/errors.js';
import { REFUND_REQUEST, refundTransaction } from '../../services/refund.js';
import { TRACKING_REQUEST, uploadTracking } from '../../services/tracking.js';
import type { ApiRoute } from '../api.js';
import { data } from '../openapi-schemas.js';

export const paymentRoutes: ApiRoute[] = [
  {
    method: 'POST',
    url: '/payment/:apiKey/refund',
    bucket: 'refund',
    limit: 30,
    by: 'apiKey',
    doc: {
      operationId: 'refundTransaction',
      tag: 'Payments',
      summary: 'Refund a paid transaction, fully or in part',
      description:
        'Name the transaction by transactionOrderId or relationId (both: they must agree, else 1001). Refunds may repeat while their sum stays within the paid amount (1010 beyond); only SUCCEEDED and PARTIALLY_REFUNDED transactions can be refunded (1008). The same requestId with the same fields answers the same refund again instead of refunding twice; with other fields it is 1006. Without a requestId the signature is the key: the same signed request (v1 sign, v2 header) sent again answers the first refund and refunds nothing; to make two equal refunds, send two requestIds.',
      request: { schema: REFUND_REQUEST },
      data: data.refund,
      errors: [
        RESULT_CODES.REQUEST_CONFLICT,
        RESULT_CODES.NOT_FOUND,
        RESULT_CODES.NOT_ALLOWED,
        RESULT_CODES.REFUND_EXCEEDS,
      ],
    },
    handle: (ctx, merchant, params, _req, signature) => refundTransaction(ctx, merchant, params, { signature }),
  },
  {
    method: 'POST',
    url: '/payment/:apiKey/tracking/upload',
    bucket: 'tracking',
    limit: 60,
    by: 'apiKey',
    doc: {
      operationId: 'uploadTracking',
      tag: 'Payments',
      summary: 'Upload shipment tracking (1 to 500 entries, each judged alone)',
      description:
        'Entries for one order accumulate (split shipments); the same order and trackingNo again updates that entry. A bad entry does not fail the request: it is counted in failedCount and named in failedOrders. The same signed request (v1 sign, v2 header) sent again answers the first result and records nothing.',
      request: { schema: TRACKING_REQUEST },
      data: data.tracking,
      errors: [],
    },
    handle: (ctx, merchant, params, _req, signature) => uploadTracking(ctx, merchant, params, { signature }),
  },
];

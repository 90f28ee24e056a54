import { buildOpenApi } from './openapi.js';
import { pageDocs } from './pages/plugin.js';
import { portalDocs } from './pages/portal.js';
import { apiRoutes } from './routes/index.js';
import { opsDocs } from './server.js';
import { stripeWebhookDocs } from './stripe-webhook.js';

/** The document /openapi.json serves, for a given public URL (the example client is generated from it). */
export function openApiDocument(serverUrl: string): object {
  return buildOpenApi(apiRoutes, [...opsDocs, ...pageDocs, ...portalDocs, ...stripeWebhookDocs], serverUrl);
}

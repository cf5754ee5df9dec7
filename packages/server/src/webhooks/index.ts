// Outbound webhooks (issue 28; DECISIONS.md, Outbound webhooks): endpoints, the outbox that the
// database's triggers fill in the transaction of each change, and the deliverers of every instance.
export { webhookHandlers } from './routes.js';
export { startWebhookWorker } from './worker.js';
export { OutboxRepository, WEBHOOK_CHANNEL } from './outbox.js';
export { DEFAULT_WEBHOOKS, KEEP_DELIVERIES_DAYS, type WebhookSettings } from './settings.js';
export { createEndpoint, deleteEndpoint, enableEndpoint, resendDelivery, type Manager } from './service.js';
export { webhookStore } from './dashboard.js';
export { DeliveryLogRepository, EndpointRepository } from './sql.js';

/** What other modules may use from webhooks. */
export { WebhooksModule } from './webhooks.module';
export { EVENT_TYPES, type EventType } from './domain/event-types';

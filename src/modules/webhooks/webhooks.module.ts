import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '../../config/config';
import { InvoicingModule } from '../invoicing';
import { SettingsModule } from '../settings';
import { WebhooksController } from './api/webhooks.controller';
import { CreateWebhookEndpointHandler } from './application/create-webhook-endpoint.command';
import { DeleteWebhookEndpointHandler } from './application/delete-webhook-endpoint.command';
import { GetWebhookEndpointHandler } from './application/get-webhook-endpoint.query';
import { ListWebhookDeliveriesHandler } from './application/list-webhook-deliveries.query';
import { ListWebhookEndpointsHandler } from './application/list-webhook-endpoints.query';
import { RotateWebhookSecretHandler } from './application/rotate-webhook-secret.command';
import { SendTestEventHandler } from './application/send-test-event.command';
import { UpdateWebhookEndpointHandler } from './application/update-webhook-endpoint.command';
import { WebhookDeliveryQueue } from './application/webhook-delivery.queue';
import { WebhookEndpointRepository } from './domain/webhook-endpoint.repository';
import { WebhookUrlPolicy } from './domain/webhook-url-policy';
import { DeliveryStore } from './infrastructure/delivery-store';
import { RelayDatabase } from './infrastructure/relay-database';
import { InvoiceOverdueJob } from './infrastructure/invoice-overdue.job';
import { RELAY_SETTINGS, relaySettings } from './infrastructure/relay-settings';
import { TypeormWebhookDeliveryQueue } from './infrastructure/typeorm-webhook-delivery.queue';
import { TypeormWebhookEndpointRepository } from './infrastructure/typeorm-webhook-endpoint.repository';
import { WebhookEndpointOrmEntity } from './infrastructure/webhook-endpoint.orm-entity';
import { WebhookRelay } from './infrastructure/webhook-relay';
import { WebhookUrlGuard } from './infrastructure/webhook-url-guard';
import { WebhookReadModel } from './application/webhook-read-model';
import { SqlWebhookReadModel } from './infrastructure/sql-webhook-read-model';

@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpointOrmEntity]), InvoicingModule, SettingsModule],
  controllers: [WebhooksController],
  providers: [
    { provide: RELAY_SETTINGS, useFactory: (config: AppConfig) => relaySettings(config), inject: [APP_CONFIG] },
    { provide: WebhookUrlGuard, useFactory: (config: AppConfig) => new WebhookUrlGuard(config.webhookAllowPrivateUrls), inject: [APP_CONFIG] },
    { provide: WebhookUrlPolicy, useExisting: WebhookUrlGuard },
    { provide: WebhookEndpointRepository, useClass: TypeormWebhookEndpointRepository },
    { provide: WebhookDeliveryQueue, useClass: TypeormWebhookDeliveryQueue },
    { provide: WebhookReadModel, useClass: SqlWebhookReadModel },
    RelayDatabase,
    DeliveryStore,
    WebhookRelay,
    InvoiceOverdueJob,
    CreateWebhookEndpointHandler,
    UpdateWebhookEndpointHandler,
    DeleteWebhookEndpointHandler,
    RotateWebhookSecretHandler,
    SendTestEventHandler,
    GetWebhookEndpointHandler,
    ListWebhookEndpointsHandler,
    ListWebhookDeliveriesHandler,
  ],
})
export class WebhooksModule {}

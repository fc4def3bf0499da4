import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '../../config/config';
import { Clock, SystemClock } from '../domain/clock';
import { dataSourceOptions } from './database/data-source';
import { DATABASE_URL } from './database/database.tokens';
import { TransactionalCommandBus } from './database/transactional-command-bus';
import { UnitOfWork } from './database/unit-of-work';
import { PgNotifications } from './database/pg-listener';
import { TransactionalEvents } from '../application/transactional-events';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { OutboxWriter } from './outbox/outbox.writer';
import { RateLimitService } from './rate-limit/rate-limit.service';
import { LeanReadRegistry } from '../http/lean-reads';
import { CursorKeyLoader } from './query/cursor-key.loader';

export interface CoreOptions {
  config: AppConfig;
  databaseUrl: string;
  clock?: Clock;
}

/** Configuration, the database, the unit of work and the cross-cutting services every module uses. */
@Global()
@Module({})
export class CoreModule {
  static register(options: CoreOptions): DynamicModule {
    const providers = [
      { provide: APP_CONFIG, useValue: options.config },
      { provide: DATABASE_URL, useValue: options.databaseUrl },
      { provide: Clock, useValue: options.clock ?? new SystemClock() },
      OutboxWriter,
      UnitOfWork,
      PgNotifications,
      { provide: TransactionalEvents, useExisting: UnitOfWork },
      TransactionalCommandBus,
      IdempotencyInterceptor,
      RateLimitService,
      LeanReadRegistry,
      CursorKeyLoader,
    ];
    return {
      module: CoreModule,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(options.databaseUrl, options.config.dbPoolSize, [], options.config.dbTimeouts),
          autoLoadEntities: true,
        }),
      ],
      providers,
      exports: [...providers.map((p) => ('provide' in p ? p.provide : p)), TypeOrmModule],
    };
  }
}

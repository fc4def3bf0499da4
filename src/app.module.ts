import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { LoggerModule } from 'nestjs-pino';
import { AuthModule, JwtAuthGuard, ScopesGuard } from './modules/auth';
import { BankStatementsModule } from './modules/bank-statements';
import { CreditNotesModule } from './modules/credit-notes';
import { CustomersModule } from './modules/customers/customers.module';
import { InvoicingModule } from './modules/invoicing/invoicing.module';
import { PaymentsModule } from './modules/payments/payments.module';
import { RemindersModule } from './modules/reminders';
import { SettingsModule } from './modules/settings';
import { StatusModule } from './modules/status/status.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { CoreModule, CoreOptions } from './shared/infrastructure/core.module';
import { IdempotencyInterceptor } from './shared/infrastructure/idempotency/idempotency.interceptor';
import { ProblemDetailsFilter } from './shared/http/problem-details.filter';
import { RateLimitGuard } from './shared/http/rate-limit.guard';
import { serializeError } from './shared/infrastructure/logging/error.serializer';

const accessLogs = (level: string) => ['trace', 'debug', 'info'].includes(level);

@Module({})
export class AppModule {
  static register(options: CoreOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot({
          // Access lines are info-level: above info they are never written, and pino-http's
          // per-request middleware (a child logger, a Nest middleware run through middie) is not
          // installed at all: the lines still written (warnings, 5xx with their stack) name their
          // request themselves (problem-details.filter.ts).
          forRoutes: accessLogs(options.config.logLevel) ? undefined : [],
          pinoHttp: {
            level: options.config.logLevel,
            autoLogging: accessLogs(options.config.logLevel),
            genReqId: (req) => (req as { id?: string }).id ?? '',
            // Bound on every line of a request (its own logs and the completion line); the custom
            // req serializer below drops pino-http's own id, and customAttributeKeys.reqId alone
            // is only applied with quietReqLogger.
            customProps: (req) => ({ request_id: (req as { id?: string }).id }),
            redact: ['req.headers.authorization', 'req.headers.cookie'],
            serializers: {
              req: (req) => ({ method: req.method, url: req.url }),
              res: (res) => ({ status_code: res.statusCode }),
              // Never SQL parameters or the values a database error repeats (error.serializer.ts).
              err: serializeError,
            },
          },
        }),
        CqrsModule.forRoot(),
        CoreModule.register(options),
        AuthModule,
        StatusModule,
        CustomersModule,
        InvoicingModule,
        PaymentsModule,
        CreditNotesModule,
        WebhooksModule,
        SettingsModule,
        BankStatementsModule,
        RemindersModule,
      ],
      providers: [
        // Guards run in this order: who is calling, how often, and may they.
        { provide: APP_GUARD, useClass: JwtAuthGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_GUARD, useClass: ScopesGuard },
        { provide: APP_INTERCEPTOR, useExisting: IdempotencyInterceptor },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
      ],
    };
  }
}

import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AuthModule } from '../modules/auth';
import { SettingsModule } from '../modules/settings';
import { CoreModule, CoreOptions } from '../shared/infrastructure/core.module';

/**
 * What provisioning needs and nothing more: the database, the unit of work, and the auth and
 * settings modules' handlers. No HTTP server and no workers, so the CLI starts in well under a
 * second next to a running server.
 */
@Module({})
export class CliModule {
  static register(options: CoreOptions): DynamicModule {
    return {
      module: CliModule,
      imports: [CqrsModule.forRoot(), CoreModule.register(options), AuthModule, SettingsModule],
    };
  }
}

import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './api/health.controller';
import { StatusController } from './api/status.controller';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [StatusController, HealthController],
})
export class StatusModule {}

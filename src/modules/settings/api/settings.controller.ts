import { Body, Controller, Get, Patch } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AuthenticatedClient } from '../../../shared/http/authenticated-client';
import { ApiAuthenticated, ProblemResponse } from '../../../shared/http/problem.response';
import { TransactionalCommandBus } from '../../../shared/infrastructure/database/transactional-command-bus';
import { CurrentClient, RequireScopes } from '../../auth';
import { GetSettingsQuery } from '../application/get-settings.query';
import { UpdateSettingsCommand } from '../application/update-settings.command';
import { TenantSettingsJson } from '../domain/tenant-settings';
import { UpdateSettingsRequest } from './settings.request';
import { SettingsResponse } from './settings.response';

@ApiTags('settings')
@ApiAuthenticated()
@Controller('settings')
export class SettingsController {
  constructor(
    private readonly commands: TransactionalCommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Get()
  @RequireScopes('settings:read')
  @ApiOperation({ summary: 'Get the tenant\'s settings', description: 'Time zone, cash application and reminders; defaults until changed.' })
  @ApiResponse({ status: 200, type: SettingsResponse })
  get(@CurrentClient() client: AuthenticatedClient): Promise<TenantSettingsJson> {
    return this.queries.execute(new GetSettingsQuery(client.tenantId));
  }

  @Patch()
  @RequireScopes('settings:write')
  @ApiOperation({
    summary: 'Change the tenant\'s settings',
    description:
      'Each section named (`timezone`, `cash_application`, `reminders`) replaces the stored one as a whole, so a section is sent in full; ' +
      'sections not named stay as they are. Returns all the settings.',
  })
  @ApiBody({
    type: UpdateSettingsRequest,
    examples: {
      timezone: { summary: 'Business dates in Los Angeles', value: { timezone: 'America/Los_Angeles' } },
      tolerance: {
        summary: 'Settle short pays of up to 5.00 and 1%',
        value: { cash_application: { short_pay_tolerance: { amount: 500, percent: 1 }, payer_name_matching: true } },
      },
      reminders: { summary: 'Reminders 3 days before and 7 days after the due date', value: { reminders: { enabled: true, days: [-3, 7] } } },
    },
  })
  @ApiResponse({ status: 200, type: SettingsResponse })
  @ApiResponse({ status: 400, type: ProblemResponse, description: 'validation_failed (unknown time zone, out-of-range value, incomplete section)' })
  update(@CurrentClient() client: AuthenticatedClient, @Body() body: UpdateSettingsRequest): Promise<TenantSettingsJson> {
    return this.commands.execute(new UpdateSettingsCommand(client.tenantId, { ...body }));
  }
}

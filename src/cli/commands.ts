import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { QueryBus } from '@nestjs/cqrs';
import { openDatabase } from '../bootstrap';
import { loadConfig } from '../config/config';
import { CreateClientCommand, CreatedClient, CreateTenantCommand, RevokeClientCommand } from '../modules/auth';
import { GetSettingsQuery, TenantSettingsJson, UpdateSettingsCommand } from '../modules/settings';
import { TransactionalCommandBus } from '../shared/infrastructure/database/transactional-command-bus';
import { CliCommand, SettingsChanges } from './args';
import { CliModule } from './cli.module';

type DatabaseCommand = Exclude<CliCommand, { kind: 'help' }>;

/**
 * Runs one command on the server's database through the application's own command handlers,
 * in a Nest application context without HTTP. Results go to `out`, progress to `progress`.
 */
export async function runCommand(command: DatabaseCommand, out: (text: string) => void, progress: (text: string) => void): Promise<void> {
  const config = loadConfig();
  // Stops the embedded server only if this process started it; a running server's stays up.
  const db = await openDatabase(config, progress);
  try {
    if (command.kind === 'migrate') {
      out('The database schema is up to date.');
      return;
    }
    const app = await NestFactory.createApplicationContext(
      CliModule.register({ config: { ...config, dbPoolSize: 2 }, databaseUrl: db.url }),
      { logger: false, abortOnError: false },
    );
    try {
      if (command.kind === 'settings-show') {
        const settings = await app.get(QueryBus).execute<GetSettingsQuery, TenantSettingsJson>(new GetSettingsQuery(command.tenantId));
        out(command.json ? JSON.stringify(settings) : describeSettings(command.tenantId, settings));
        return;
      }
      await execute(app.get(TransactionalCommandBus), command, out);
    } finally {
      await app.close();
    }
  } finally {
    await db.stop();
  }
}

async function execute(
  bus: TransactionalCommandBus,
  command: Exclude<DatabaseCommand, { kind: 'migrate' | 'settings-show' }>,
  out: (text: string) => void,
): Promise<void> {
  switch (command.kind) {
    case 'tenant-create': {
      const created = await bus.execute<CreatedClient>(new CreateTenantCommand(command.name, command.scopes, command.rateLimit));
      if (command.json) {
        out(JSON.stringify({ tenant_id: created.tenant_id, client_id: created.client_id, client_secret: created.client_secret }));
      } else {
        printClient(out, `Created tenant ${created.tenant_id} (${command.name.trim()})`, created);
      }
      return;
    }
    case 'client-create': {
      const created = await bus.execute<CreatedClient>(
        new CreateClientCommand(command.tenantId, command.scopes, command.rateLimit, command.name),
      );
      if (command.json) out(JSON.stringify(created));
      else printClient(out, `Created client ${created.client_id} for tenant ${created.tenant_id}`, created);
      return;
    }
    case 'client-revoke': {
      const result = await bus.execute<{ client_id: string; revoked: boolean }>(new RevokeClientCommand(command.clientId));
      out(
        command.json
          ? JSON.stringify(result)
          : `Revoked client ${result.client_id}: new tokens are refused now, issued ones within a second on every running instance.`,
      );
      return;
    }
    case 'settings-set': {
      const settings = await bus.execute<TenantSettingsJson>(new UpdateSettingsCommand(command.tenantId, settingsPatch(command.changes)));
      out(command.json ? JSON.stringify(settings) : describeSettings(command.tenantId, settings));
      return;
    }
  }
}

/**
 * The API replaces a section as a whole; the CLI changes single fields, so a section it touches
 * is sent whole with the other fields as they are (read in the command's own transaction,
 * under the settings row's lock: see UpdateSettingsCommand's `patch` function form).
 */
function settingsPatch(c: SettingsChanges): (current: TenantSettingsJson) => TenantSettingsJson {
  return (current) => ({
    timezone: c.timezone ?? current.timezone,
    cash_application: {
      short_pay_tolerance: {
        amount: c.shortPayAmount ?? current.cash_application.short_pay_tolerance.amount,
        percent: c.shortPayPercent ?? current.cash_application.short_pay_tolerance.percent,
      },
      payer_name_matching: c.payerNameMatching ?? current.cash_application.payer_name_matching,
    },
    reminders: { enabled: c.remindersEnabled ?? current.reminders.enabled, days: c.reminderDays ?? current.reminders.days },
  });
}

function describeSettings(tenantId: string, s: TenantSettingsJson): string {
  const tolerance = s.cash_application.short_pay_tolerance;
  return [
    `Settings of tenant ${tenantId}`,
    `  timezone:             ${s.timezone}`,
    `  short-pay tolerance:  ${tolerance.amount} (minor units), ${tolerance.percent}%${tolerance.amount > 0 && tolerance.percent > 0 ? '' : ' (off)'}`,
    `  payer name matching:  ${s.cash_application.payer_name_matching}`,
    `  reminders:            ${s.reminders.enabled ? 'on' : 'off'}, days ${s.reminders.days.join(', ') || '(none)'}`,
  ].join('\n');
}

function printClient(out: (text: string) => void, title: string, created: CreatedClient): void {
  out(title);
  out(`  client_id:     ${created.client_id}`);
  out(`  client_secret: ${created.client_secret}`);
  out(`  scopes:        ${created.scopes.join(' ')}`);
  out('The secret is shown only once: store it now.');
}

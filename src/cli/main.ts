import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { openDatabase } from '../bootstrap';
import { loadConfig } from '../config/config';
import { CreateClientCommand, CreatedClient, CreateTenantCommand, RevokeClientCommand } from '../modules/auth';
import { DomainError } from '../shared/domain/domain-error';
import { TransactionalCommandBus } from '../shared/infrastructure/database/transactional-command-bus';
import { CliCommand, parseArgs, USAGE, UsageError } from './args';
import { CliModule } from './cli.module';

/**
 * Provisioning CLI (`npm run cli -- ...`). It runs the application's own command handlers in
 * a Nest application context without HTTP, on the same database the server uses. Results go
 * to stdout (one JSON object with --json), progress and errors to stderr.
 */
const out = (text: string) => process.stdout.write(`${text}\n`);
const progress = (text: string) => process.stderr.write(`${text}\n`);

async function run(argv: string[]): Promise<number> {
  let command: CliCommand;
  try {
    command = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    progress(`error: ${error.message} (see --help)`);
    return 2;
  }
  if (command.kind === 'help') {
    out(USAGE);
    return 0;
  }

  const config = loadConfig();
  // Stops the embedded server only if this process started it; a running server's stays up.
  const db = await openDatabase(config, progress);
  try {
    if (command.kind === 'migrate') {
      out('The database schema is up to date.');
      return 0;
    }
    const app = await NestFactory.createApplicationContext(
      CliModule.register({ config: { ...config, dbPoolSize: 2 }, databaseUrl: db.url }),
      { logger: false, abortOnError: false },
    );
    try {
      await execute(app.get(TransactionalCommandBus), command);
    } finally {
      await app.close();
    }
    return 0;
  } finally {
    await db.stop();
  }
}

async function execute(bus: TransactionalCommandBus, command: Exclude<CliCommand, { kind: 'help' | 'migrate' }>): Promise<void> {
  switch (command.kind) {
    case 'tenant-create': {
      const created = await bus.execute<CreatedClient>(new CreateTenantCommand(command.name, command.scopes, command.rateLimit));
      if (command.json) {
        out(JSON.stringify({ tenant_id: created.tenant_id, client_id: created.client_id, client_secret: created.client_secret }));
      } else {
        printClient(`Created tenant ${created.tenant_id} (${command.name.trim()})`, created);
      }
      return;
    }
    case 'client-create': {
      const created = await bus.execute<CreatedClient>(
        new CreateClientCommand(command.tenantId, command.scopes, command.rateLimit, command.name),
      );
      if (command.json) out(JSON.stringify(created));
      else printClient(`Created client ${created.client_id} for tenant ${created.tenant_id}`, created);
      return;
    }
    case 'client-revoke': {
      const result = await bus.execute<{ client_id: string; revoked: boolean }>(new RevokeClientCommand(command.clientId));
      out(command.json ? JSON.stringify(result) : `Revoked client ${result.client_id}: new tokens are refused now, issued ones within CLIENT_CACHE_TTL_MS (30 s).`);
      return;
    }
  }
}

function printClient(title: string, created: CreatedClient): void {
  out(title);
  out(`  client_id:     ${created.client_id}`);
  out(`  client_secret: ${created.client_secret}`);
  out(`  scopes:        ${created.scopes.join(' ')}`);
  out('The secret is shown only once: store it now.');
}

/** One line, no stack: a domain error's message as is, anything else by its message. */
function describe(error: unknown): string {
  if (error instanceof DomainError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim() || 'unexpected error';
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    progress(`error: ${describe(error)}`);
    process.exit(1);
  },
);

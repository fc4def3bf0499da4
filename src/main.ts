import 'reflect-metadata';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from './app.factory';
import { openDatabase } from './bootstrap';
import { loadConfig } from './config/config';
import { checkProductionEnv, isProduction, StartupConfigError } from './config/production';
import { CreateTenantCommand, CreatedClient } from './modules/auth';
import { TransactionalCommandBus } from './shared/infrastructure/database/transactional-command-bus';

const log = (msg: string) => process.stdout.write(`${msg}\n`);

async function main(): Promise<void> {
  const started = Date.now();
  // Before anything starts: production mode refuses to run without DATABASE_URL and a real JWT_SECRET.
  checkProductionEnv(process.env);
  const config = loadConfig();
  const db = await openDatabase(config, log);
  const app = await createApp({ config, databaseUrl: db.url });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received: draining in-flight requests`);
    let code = 0;
    try {
      // Nest's close() runs onModuleDestroy hooks (pools, workers) before it closes the HTTP
      // server, which would pull the database from under requests still in flight. Closing the
      // server first stops new connections and waits until in-flight requests are answered.
      await app.getHttpAdapter().close();
      await app.close();
      await db.stop();
    } catch (error) {
      process.stderr.write(`shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
      code = 1;
    } finally {
      process.exit(code);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  const demo = db.embedded && !isProduction() ? await demoCredentials(app.get(TransactionalCommandBus), config.dataDir) : null;
  const base = `http://localhost:${config.port}`;
  log('');
  log(`Receivables API listening on ${base}/api/v1  (started in ${Date.now() - started} ms)`);
  log(`API docs: ${base}/docs   OpenAPI: ${base}/api/v1/openapi.json`);
  if (demo) {
    log(`Demo tenant ${demo.tenant_id}`);
    log(`  client_id:     ${demo.client_id}`);
    log(`  client_secret: ${demo.client_secret}`);
    log(`Try: curl -s -u '${demo.client_id}:${demo.client_secret}' -d grant_type=client_credentials ${base}/api/v1/auth/token`);
  }
}

/**
 * On the embedded database the first start creates a demo tenant and client. Secrets are
 * stored only hashed, so the demo credentials are also kept in DATA_DIR (mode 600) to be
 * printed on every start; this never happens with DATABASE_URL.
 */
async function demoCredentials(bus: TransactionalCommandBus, dataDir: string): Promise<CreatedClient> {
  const file = join(dataDir, 'demo-credentials.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const created = await bus.execute<CreatedClient>(new CreateTenantCommand('Demo Company'));
  writeFileSync(file, JSON.stringify(created, null, 2), { mode: 0o600 });
  return created;
}

main().catch((error) => {
  if (error instanceof StartupConfigError) {
    // A configuration the operator must change: the one sentence saying what, no stack.
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

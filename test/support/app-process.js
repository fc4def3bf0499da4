// Runs the application in a child process so a test can kill it abruptly (SIGKILL) and start
// another instance on the same database. TypeScript is compiled on require with @swc/core and
// the project's .swcrc (what jest uses). Configuration comes from the environment
// (DATABASE_URL must point at an already migrated database); prints "READY <port>" once listening.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const swc = require('@swc/core');

const swcrc = JSON.parse(readFileSync(join(__dirname, '..', '..', '.swcrc'), 'utf8'));
require.extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(readFileSync(filename, 'utf8'), { ...swcrc, swcrc: false, filename });
  module._compile(code, filename);
};

require('reflect-metadata');
const { createApp } = require('../../src/app.factory');
const { loadConfig } = require('../../src/config/config');

(async () => {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is required');
  const app = await createApp({ config: loadConfig(process.env), databaseUrl: process.env.DATABASE_URL });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`READY ${app.getHttpServer().address().port}\n`);
  process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
})().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});

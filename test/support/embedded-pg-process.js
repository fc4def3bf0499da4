// Runs an embedded PostgreSQL cluster of its own for one test (outside jest's module sandbox,
// where the binaries package cannot be imported): `node embedded-pg-process.js <dataDir> <port>`
// prints "URL <url>" once it serves; on SIGTERM it lets go of the server, which stops it when
// nothing else holds a lease on it (an application on DATABASE_URL holds none), then exits 0.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const swc = require('@swc/core');

const swcrc = JSON.parse(readFileSync(join(__dirname, '..', '..', '.swcrc'), 'utf8'));
require.extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(readFileSync(filename, 'utf8'), { ...swcrc, swcrc: false, filename });
  module._compile(code, filename);
};

const { startEmbeddedPostgres } = require('../../src/shared/infrastructure/database/embedded-postgres');

(async () => {
  const [dir, port] = process.argv.slice(2);
  const db = await startEmbeddedPostgres(dir, Number(port), () => undefined, {
    settings: ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'],
    ownSession: false,
  });
  process.once('SIGTERM', () => db.stop().then(() => process.exit(0)));
  process.stdout.write(`URL ${db.url}\n`);
})().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});

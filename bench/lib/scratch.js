'use strict';
/** What the standalone bench scripts (webhooks-throughput.js, statement-size.js) share. */
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { freePort } = require('./processes');

const DIST = join(__dirname, '../../dist');

/**
 * A migrated embedded PostgreSQL in a temp dir of its own; its stop and removal are pushed onto
 * `cleanups` (run them last-in, first-out).
 */
async function scratchDatabase(prefix, cleanups) {
  const { startEmbeddedPostgres } = require(join(DIST, 'shared/infrastructure/database/embedded-postgres.js'));
  const { migrate } = require(join(DIST, 'bootstrap.js'));
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  // PostgreSQL refuses to run as root: embedded-postgres runs it as its own user, which must reach the directory.
  chmodSync(dataDir, 0o755);
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const db = await startEmbeddedPostgres(dataDir, await freePort(), () => undefined);
  cleanups.push(() => db.stop());
  await migrate(db.url, () => undefined);
  return { db, dataDir };
}

module.exports = { DIST, scratchDatabase };

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { interruptedFirstStart, serverSettings, sharedBuffersMb } from '../../../../src/shared/infrastructure/database/embedded-postgres';
import { choosePort, DEFAULT_PORT } from '../../../../src/shared/infrastructure/database/embedded-postgres-host';
import { freePort, occupy } from '../../../support/embedded-server';

describe('embedded PostgreSQL shared_buffers', () => {
  const GB = 1024 ** 3;

  it('takes a quarter of the memory, as PostgreSQL advises for a database server', () => {
    expect(sharedBuffersMb(8 * GB)).toBe(2048);
    expect(sharedBuffersMb(3 * GB)).toBe(768);
  });

  it('never goes below PostgreSQL’s own default nor above 4 GB', () => {
    expect(sharedBuffersMb(256 * 1024 ** 2)).toBe(128);
    expect(sharedBuffersMb(24 * GB)).toBe(4096);
  });
});

describe('embedded PostgreSQL server settings (docs/adr/0048)', () => {
  const settings = Object.fromEntries(serverSettings(8 * 1024 ** 3).map((s) => s.split('=') as [string, string]));

  it('spaces checkpoints by time (15 min), not by WAL volume (8 GB before one is forced)', () => {
    expect(settings).toMatchObject({ max_wal_size: '8GB', checkpoint_timeout: '15min', shared_buffers: '2048MB' });
  });

  it('leaves every durability setting at PostgreSQL’s own default (on)', () => {
    for (const name of ['fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method']) expect(settings).not.toHaveProperty(name);
  });
});

describe('embedded PostgreSQL: an interrupted first start', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'receivables-cluster-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const touch = (...files: string[]) => files.forEach((f) => (mkdirSync(dirname(join(dir, f)), { recursive: true }), writeFileSync(join(dir, f), '')));

  it('is a cluster that never ran and lacks pg_control, or whose password was never recorded', () => {
    touch('PG_VERSION');
    expect(interruptedFirstStart(dir, true)).toBe(true);
    touch('global/pg_control');
    expect(interruptedFirstStart(dir, false)).toBe(true);
    expect(interruptedFirstStart(dir, true)).toBe(false);
  });

  it('is never a cluster that has run (it may hold data), nor a missing one', () => {
    touch('PG_VERSION', 'postmaster.opts');
    expect(interruptedFirstStart(dir, false)).toBe(false);
    expect(interruptedFirstStart(join(dir, 'absent'), false)).toBe(false);
  });
});

describe('embedded PostgreSQL: its port', () => {
  let holder: Server | undefined;
  afterEach(() => holder?.close());

  it('takes the last start’s port or the default when free, else the next free one', async () => {
    holder = await occupy(DEFAULT_PORT);
    const previous = await choosePort(undefined, undefined);
    expect(previous).not.toBe(DEFAULT_PORT);
    expect(await choosePort(undefined, previous)).toBe(previous);
    expect(await choosePort(undefined, previous, new Set([previous]))).not.toBe(previous);
  });

  it('honours an explicit EMBEDDED_PG_PORT, and refuses a taken one with what to change', async () => {
    holder = await occupy(DEFAULT_PORT);
    await expect(choosePort(DEFAULT_PORT, undefined)).rejects.toThrow(`EMBEDDED_PG_PORT=${DEFAULT_PORT} is already in use by another program: set EMBEDDED_PG_PORT to a free port, or unset it to have one chosen`);
    const free = await freePort();
    expect(await choosePort(free, DEFAULT_PORT + 1)).toBe(free);
  });
});

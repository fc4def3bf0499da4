import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../support/build';
import { runNode } from '../../support/child-process';
import { createTestDatabase } from '../../support/database';

/** A database seeded by the compiled seed (2,000 invoices, 20 customers) and a scratch directory, for comparing the service with a bench baseline. */
export interface SeededBench {
  url: string;
  workDir: string;
  tenant: { tenant_id: string };
}

/** Registers beforeAll/afterAll that build the service, seed a fresh database and remove both afterwards. */
export function seededBench(prefix: string): SeededBench {
  const bench = {} as SeededBench;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    await ensureBuilt('main.js');
    const seed = await ensureBuilt('cli/seed.js');
    const db = await createTestDatabase();
    drop = () => db.drop();
    bench.url = db.url;
    bench.workDir = mkdtempSync(join(tmpdir(), prefix));
    const seeded = await runNode(seed, ['--invoices', '2000', '--customers', '20', '--json'], { DATABASE_URL: db.url, LOG_LEVEL: 'silent' });
    if (seeded.code !== 0) throw new Error(`seed failed: ${seeded.stderr}`);
    // Node's warnings (pg@8 deprecates queries queued on a busy client: they break in pg@9).
    if (/Warning:/.test(seeded.stderr)) throw new Error(`seed warned: ${seeded.stderr}`);
    bench.tenant = JSON.parse(seeded.stdout).tenants[0];
  }, 120_000);
  afterAll(async () => {
    await drop?.();
    if (bench.workDir) rmSync(bench.workDir, { recursive: true, force: true });
  });
  return bench;
}

import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  if (process.env.OPENAPI_CONTRACT_CACHE) rmSync(process.env.OPENAPI_CONTRACT_CACHE, { recursive: true, force: true });
  const started = globalThis.__EMBEDDED_PG__;
  if (!started) return;
  await started.db.stop();
  for (const dir of [started.db.clusterDir, started.dir]) rmSync(dir, { recursive: true, force: true });
}

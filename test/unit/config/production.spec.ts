import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config/config';
import { checkProductionEnv, PUBLIC_EXAMPLE_JWT_SECRETS, readJwtSecret, StartupConfigError } from '../../../src/config/production';

const GOOD = 'x7Jq0yL2m9Vt4Rb8Kc1Nd6Wf3Hs5Pz0Ae2Gu7Yi9'; // 40 bytes
const DB = 'postgres://app@db/app';

function refusal(env: NodeJS.ProcessEnv): string {
  try {
    checkProductionEnv(env);
  } catch (error) {
    expect(error).toBeInstanceOf(StartupConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

/** One sentence: no line break, one final full stop. */
const oneSentence = (text: string) => expect(text).toMatch(/^[^\n]+\.$/);

describe('production mode (NODE_ENV=production)', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'prod-config-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lets any environment through outside production', () => {
    expect(() => checkProductionEnv({})).not.toThrow();
    expect(() => checkProductionEnv({ NODE_ENV: 'development', JWT_SECRET: 'short' })).not.toThrow();
  });

  it('names DATABASE_URL, JWT_SECRET or both when missing', () => {
    const both = refusal({ NODE_ENV: 'production' });
    oneSentence(both);
    expect(both).toContain('DATABASE_URL and JWT_SECRET');
    expect(refusal({ NODE_ENV: 'production', JWT_SECRET: GOOD })).toMatch(/needs DATABASE_URL to be set/);
    expect(refusal({ NODE_ENV: 'production', DATABASE_URL: DB })).toMatch(/needs JWT_SECRET \(or JWT_SECRET_FILE\) to be set/);
    expect(refusal({ NODE_ENV: 'Production ', DATABASE_URL: DB })).toMatch(/JWT_SECRET/);
  });

  it('refuses a key shorter than 32 bytes and every published example', () => {
    const short = refusal({ NODE_ENV: 'production', DATABASE_URL: DB, JWT_SECRET: 'a'.repeat(31) });
    oneSentence(short);
    expect(short).toContain('31 bytes');
    expect(() => checkProductionEnv({ NODE_ENV: 'production', DATABASE_URL: DB, JWT_SECRET: 'a'.repeat(32) })).not.toThrow();
    for (const example of PUBLIC_EXAMPLE_JWT_SECRETS) {
      expect(refusal({ NODE_ENV: 'production', DATABASE_URL: DB, JWT_SECRET: example })).toMatch(/published example|bytes long/);
    }
    expect(refusal({ NODE_ENV: 'production', DATABASE_URL: DB, JWT_SECRET: 'change-me-in-production-to-a-long-random-string' })).toContain('published example');
  });

  it('reads the key from JWT_SECRET_FILE (a trailing newline dropped) and refuses an unreadable, empty or short one', () => {
    const file = join(dir, 'jwt');
    writeFileSync(file, `${GOOD}\n`);
    expect(readJwtSecret({ JWT_SECRET_FILE: file })).toBe(GOOD);
    expect(loadConfig({ JWT_SECRET_FILE: file }).jwtSecret).toBe(GOOD);
    expect(() => checkProductionEnv({ NODE_ENV: 'production', DATABASE_URL: DB, JWT_SECRET_FILE: file })).not.toThrow();

    const missing = refusal({ NODE_ENV: 'production', DATABASE_URL: DB, JWT_SECRET_FILE: join(dir, 'nope') });
    oneSentence(missing);
    expect(missing).toContain('ENOENT');
    writeFileSync(join(dir, 'empty'), '\n');
    expect(refusal({ NODE_ENV: 'production', DATABASE_URL: DB, JWT_SECRET_FILE: join(dir, 'empty') })).toContain('empty');
    writeFileSync(join(dir, 'short'), 'tooshort');
    expect(refusal({ NODE_ENV: 'production', DATABASE_URL: DB, JWT_SECRET_FILE: join(dir, 'short') })).toContain('the key in JWT_SECRET_FILE');
    expect(() => readJwtSecret({ JWT_SECRET: GOOD, JWT_SECRET_FILE: file })).toThrow('only one of JWT_SECRET and JWT_SECRET_FILE');
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The README stays complete: every environment variable the service reads (`env.X`, `env['X']`,
 * `process.env.X`, a literal name next to `env` as in `int('PORT', 3000, env)` or
 * `int(env, 'WEBHOOK_RELAY_POLL_MS', …)`, or one given to a `…Env('X')` helper) has a row
 * `| \`X\` | default | meaning |` in its configuration table, or is explained where it is used
 * (`X` or `X=…` in backticks).
 */
const ROOT = resolve(__dirname, '../../..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? tsFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** Names read from the environment in a TypeScript source text. */
export function environmentNames(source: string): Set<string> {
  const names = new Set<string>();
  for (const line of source.split('\n')) {
    if (/^\s*(\/\/|\*)/.test(line)) continue;
    for (const m of line.matchAll(/\b(?:process\.)?env(?:\.([A-Z][A-Z0-9_]+)|\[\s*'([A-Z][A-Z0-9_]+)'\s*\])/g)) names.add(m[1] ?? m[2]);
    // Helpers that read the environment themselves: positiveIntFromEnv('REMINDER_SCAN_MS', 300_000).
    for (const m of line.matchAll(/\b\w*Env\(\s*'([A-Z][A-Z0-9_]+)'/g)) names.add(m[1]);
    if (/\benv\b/.test(line)) {
      // A name passed to a reader together with the environment: int('PORT', 3000, env), int(env, 'X', 1).
      for (const m of line.matchAll(/\b\w+\(\s*(?:env\s*,\s*)?'([A-Z][A-Z0-9_]+)'/g)) names.add(m[1]);
    }
  }
  return names;
}

describe('README configuration table', () => {
  const names = new Set(tsFiles(join(ROOT, 'src')).flatMap((f) => [...environmentNames(readFileSync(f, 'utf8'))]));
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const rows = new Set([...readme.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
  // A variable a section explains in prose (e.g. a production section) counts too: `NAME` or `NAME=…`.
  const mentioned = new Set([...readme.matchAll(/`([A-Z][A-Z0-9_]+)(?:=[^`]*)?`/g)].map((m) => m[1]));

  it('reads the names from the source', () => {
    expect([...names]).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL', 'WEBHOOK_ALLOW_PRIVATE_URLS', 'WEBHOOK_RELAY_POLL_MS', 'INVOICE_OVERDUE_SCAN_MS', 'REMINDER_SCAN_MS', 'OVERDUE_FIGURES_SCAN_MS']));
  });

  it('documents every environment variable the service reads', () => {
    expect([...names].filter((n) => !rows.has(n) && !mentioned.has(n)).sort()).toEqual([]);
  });

  it('the reader sees each way a name is read', () => {
    const source = [
      "const a = int('PORT', 3000, env);",
      "const b = int(env, 'WEBHOOK_RELAY_POLL_MS', 10_000);",
      'const c = process.env.LOG_LEVEL;',
      "const d = env['DATA_DIR'];",
      "// env.NOT_THIS in a comment",
      "const e = lookup('NOT_AN_ENV_READ');",
      "const f = positiveIntFromEnv('REMINDER_SCAN_MS', 300_000);",
    ].join('\n');
    expect([...environmentNames(source)].sort()).toEqual(['DATA_DIR', 'LOG_LEVEL', 'PORT', 'REMINDER_SCAN_MS', 'WEBHOOK_RELAY_POLL_MS']);
  });
});

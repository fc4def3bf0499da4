import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Item 6 of issue 11: the repository's npm configuration must not silence npm (a failing
 * `npm ci` printed 0 bytes), and `npm run -s cli -- … --json` still prints nothing but the JSON.
 * npm runs in a scratch project that carries this repository's .npmrc (if any) and its `cli`
 * script, so no install, build or network is involved.
 */
const ROOT = join(__dirname, '..', '..', '..');

function npm(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // The run's own npm settings (npm_config_* of an outer `npm test`) must not leak into the child.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return new Promise((resolve) => {
    execFile('npm', args, { cwd, env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe("npm's output (issue 11 item 6)", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'receivables-npm-'));
    if (existsSync(join(ROOT, '.npmrc'))) copyFileSync(join(ROOT, '.npmrc'), join(dir, '.npmrc'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('sets no silent log level in the repository', () => {
    const npmrc = existsSync(join(ROOT, '.npmrc')) ? readFileSync(join(ROOT, '.npmrc'), 'utf8') : '';
    expect(npmrc).not.toMatch(/^\s*loglevel\s*=\s*silent/m);
  });

  it('a failing npm ci says why (it printed nothing)', async () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', private: true }));
    const res = await npm(dir, ['ci', '--no-audit', '--no-fund']); // no package-lock.json: refused at once, offline
    expect(res.code).not.toBe(0);
    expect(res.stdout + res.stderr).toMatch(/package-lock\.json/);
  });

  it('npm run -s cli -- … --json prints only the JSON object', async () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    // The real `cli` script (build, then dist/cli/main.js); a stand-in build and CLI that print JSON.
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', private: true, scripts: { build: 'node -e 0', cli: scripts.cli } }));
    mkdirSync(join(dir, 'dist', 'cli'), { recursive: true });
    writeFileSync(join(dir, 'dist', 'cli', 'main.js'), 'process.stdout.write(JSON.stringify({ args: process.argv.slice(2) }) + "\\n");');
    const res = await npm(dir, ['run', '-s', 'cli', '--', 'tenant', 'create', '--name', 'Acme', '--json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ args: ['tenant', 'create', '--name', 'Acme', '--json'] });
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
  });

  it.each(['README.md', 'docs/api.md'])('%s shows every --json call of the CLI with npm run -s', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const calls = text.split('\n').filter((line) => /npm run\b.*\bcli\b.*--json/.test(line));
    expect(calls.length).toBeGreaterThan(0);
    for (const line of calls) expect(line).toMatch(/npm run (-s|--silent) cli/);
  });
});

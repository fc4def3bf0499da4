import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { FixedClock } from '../../../src/shared/domain/clock';
import { TestApp } from '../../support/test-app';

/**
 * The README's "Example calls" are run as written (bash and curl, in order, against the real
 * application on a fresh tenant), and every answer the README shows on a `# →` line must be what
 * the calls print. They were inconsistent before (a payment dated before its invoice gave
 * `average_days_to_pay: -1`; `cus_...` placeholders answered 404). Only BASE, CLIENT_ID and
 * CLIENT_SECRET are replaced; "…" in a shown answer stands for a part that differs per run.
 */
const README = resolve(__dirname, '../../../README.md');
const run = promisify(execFile);

/** The first bash block after "## Example calls". */
export function exampleScript(readme: string): string {
  const section = readme.slice(readme.indexOf('## Example calls'));
  const m = /```bash\n([\s\S]*?)\n```/.exec(section);
  if (!m) throw new Error('README has no bash block under "## Example calls"');
  return m[1];
}

/** The answers shown on `# →` lines (with their `#    ` continuation lines), without trailing `(remarks)`. */
export function shownAnswers(script: string): string[] {
  const answers: string[] = [];
  const lines = script.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const first = /^# → (.*)$/.exec(lines[i]);
    if (!first) continue;
    let answer = first[1];
    while (i + 1 < lines.length && /^# {3,}\S/.test(lines[i + 1])) answer += lines[++i].replace(/^#\s+/, '');
    answers.push(answer.replace(/\s{2,}\(.*\)\s*$/, '').trim());
  }
  return answers;
}

/** Where each shown answer is missing from the output, taking them in order ("…" matches anything). */
export function unmatchedAnswers(output: string, answers: readonly string[]): string[] {
  const missing: string[] = [];
  let at = 0;
  for (const answer of answers) {
    let pos = at;
    let found = true;
    for (const fragment of answer.split('…').filter(Boolean)) {
      const i = output.indexOf(fragment, pos);
      if (i < 0) {
        found = false;
        break;
      }
      pos = i + fragment.length;
    }
    if (found) at = pos;
    else missing.push(answer);
  }
  return missing;
}

async function hasCommand(name: string): Promise<boolean> {
  return run('bash', ['-c', `command -v ${name}`]).then(
    () => true,
    () => false,
  );
}

describe('README example calls', () => {
  let app: TestApp;
  let dir: string;
  let curl = false;

  beforeAll(async () => {
    curl = await hasCommand('curl');
    // The README's story was run on 2026-11-27: its dates are relative to that day.
    app = await TestApp.start({ clock: new FixedClock(new Date('2026-11-27T12:00:00Z')) });
    dir = mkdtempSync(join(tmpdir(), 'readme-examples-'));
  });

  afterAll(async () => {
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows answers on # → lines, and the script has the three lines a reader fills in', () => {
    const script = exampleScript(readFileSync(README, 'utf8'));
    expect(shownAnswers(script).length).toBeGreaterThanOrEqual(10);
    for (const name of ['BASE', 'CLIENT_ID', 'CLIENT_SECRET']) expect(script).toMatch(new RegExp(`^${name}=`, 'm'));
    expect(script).not.toMatch(/\b(cus|inv|pay|cn|bst)_\.\.\./); // ids are captured, never placeholders
  });

  it('runs as written and prints every answer it shows', async () => {
    if (!curl) {
      // The examples are curl commands; without curl there is nothing to run them with.
      console.warn('README example calls not run: curl is not installed');
      return;
    }
    const tenant = await app.createTenant('Readme');
    const script = exampleScript(readFileSync(README, 'utf8'))
      .replace(/^BASE=.*$/m, `BASE=${app.baseUrl}/api/v1`)
      .replace(/^CLIENT_ID=.*$/m, `CLIENT_ID=${tenant.client_id}`)
      .replace(/^CLIENT_SECRET=.*$/m, `CLIENT_SECRET=${tenant.client_secret}`);
    const file = join(dir, 'examples.sh');
    writeFileSync(file, `set -o pipefail\n${script}\n`);
    const { stdout } = await run('bash', [file], { cwd: dir, timeout: 90_000, maxBuffer: 10 * 1024 * 1024 });
    expect(unmatchedAnswers(stdout, shownAnswers(script))).toEqual([]);
    // The files the statement calls save are a PDF and a CSV.
    expect(readFileSync(join(dir, 'statement.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    expect(readFileSync(join(dir, 'statement.csv'), 'utf8')).toMatch(/^date,type,reference,description,debit,credit,balance/);
  }, 120_000);

  it('matches answers in order, with … for what differs per run', () => {
    const out = '{"status":"ok","time":"2026-11-27T04:02:18.937Z"}INV-000001 total 202969\n[ 0, 500000 ]\nwhsec_abc=';
    expect(unmatchedAnswers(out, ['{"status":"ok","time":"…"}', 'INV-000001 total 202969', '[ 0, 500000 ]', 'whsec_…'])).toEqual([]);
    expect(unmatchedAnswers(out, ['[ 0, 500000 ]', 'INV-000001 total 202969'])).toEqual(['INV-000001 total 202969']);
    expect(shownAnswers('x\n# → [ 1, 2 ]   (a remark)\n# → {"a":1,\n#    "b":2}')).toEqual(['[ 1, 2 ]', '{"a":1,"b":2}']);
  });
});

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The documentation stands alone: a user who clones the repository gets every file the README
 * and docs/ link to. Every relative link (and its #anchor) must resolve inside the repository,
 * nothing may point at the sibling `../shared` directory the project was specified from, and ADR
 * numbers are unique.
 */
const ROOT = resolve(__dirname, '../../..');
const IGNORED_DIRS = new Set(['node_modules', '.git', '.data', 'dist', 'coverage']);

function markdownUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (IGNORED_DIRS.has(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownUnder(path) : name.endsWith('.md') ? [path] : [];
  });
}

const DOCS = [join(ROOT, 'README.md'), ...markdownUnder(join(ROOT, 'docs'))];
const rel = (path: string) => relative(ROOT, path).split(sep).join('/');

/** The text outside fenced code blocks and inline code spans (where a link is only text). */
export function prose(markdown: string): string {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (m && (fence === undefined || (m[1][0] === fence[0] && m[1].length >= fence.length))) {
      fence = fence === undefined ? m[1] : undefined;
      lines.push('');
      continue;
    }
    lines.push(fence === undefined ? line : '');
  }
  // Inline code: a run of n backticks up to the next run of exactly n.
  return lines.join('\n').replace(/(`+)[\s\S]*?[^`]\1(?!`)|(`+)\2/g, (s) => s.replace(/[^\n]/g, ' '));
}

/** Link targets: inline links and images, reference definitions, HTML href/src. */
export function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const targets: string[] = [];
  for (const m of text.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) {
    targets.push(m[1].replace(/^<|>$/g, ''));
  }
  for (const m of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/gm)) targets.push(m[1].replace(/^<|>$/g, ''));
  for (const m of text.matchAll(/\b(?:href|src)\s*=\s*["']([^"']+)["']/g)) targets.push(m[1]);
  return targets;
}

/** GitHub's anchor for a heading: text as rendered, lower case, punctuation dropped, spaces → '-'. */
export function slug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/`/g, '')
    .replace(/(\*\*|__|\*)/g, '')
    .trim()
    .toLowerCase();
  return rendered.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor a markdown file defines: its headings (deduplicated as GitHub does) and HTML ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const lines = markdown.split('\n');
  let fence: string | undefined;
  for (const line of lines) {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f && (fence === undefined || (f[1][0] === fence[0] && f[1].length >= fence.length))) {
      fence = fence === undefined ? f[1] : undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const h = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)\s*=\s*["']([^"']+)["']/g)) anchors.add(m[1]);
  }
  return anchors;
}

/** Why a relative link from `file` is broken, or undefined when it resolves. */
function brokenLink(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined; // http:, mailto:, …
  const hash = target.indexOf('#');
  const pathPart = decodeURI(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const resolved = pathPart === '' ? file : pathPart.startsWith('/') ? resolve(ROOT, `.${pathPart}`) : resolve(dirname(file), pathPart);
  const inside = relative(ROOT, resolved);
  if (inside.startsWith('..') || resolve(ROOT, inside) !== resolved) return 'points outside the repository';
  if (inside.split(sep).some((part) => IGNORED_DIRS.has(part))) return 'points into an ignored directory';
  if (!existsSync(resolved)) return 'no such file';
  if (anchor === undefined || anchor === '') return undefined;
  if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) return undefined; // anchors of source files: GitHub line anchors
  if (/^L\d+(-L\d+)?$/.test(anchor)) return undefined;
  return anchorsOf(readFileSync(resolved, 'utf8')).has(anchor) ? undefined : `no heading #${anchor} in ${rel(resolved)}`;
}

/** A mention of the specification directory the repository does not contain. */
const OUTSIDE_SPEC = [/(^|[^\w/.-])(\.\.\/)+shared\b/, /\/work\/shared\b/, /\bshared\/(api-contract|architecture)\.md\b/];

describe('documentation links', () => {
  it('finds the README and the docs', () => {
    expect(DOCS.map(rel)).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/api.md']));
  });

  it('every relative link in README.md and docs/**/*.md resolves to a file (and heading) in the repository', () => {
    const broken: string[] = [];
    for (const file of DOCS) {
      for (const target of linkTargets(readFileSync(file, 'utf8'))) {
        const why = brokenLink(file, target);
        if (why) broken.push(`${rel(file)}: ${target} — ${why}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('no document mentions the ../shared specification directory, which a clone does not have', () => {
    const found: string[] = [];
    for (const file of DOCS) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (OUTSIDE_SPEC.some((re) => re.test(line))) found.push(`${rel(file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('no document cites numbered sections (§N) of a specification outside the repository; RFC sections are fine', () => {
    const found: string[] = [];
    for (const file of DOCS) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/§\s*\d/.test(line.replace(/\bRFC \d+ §[\d.]+/g, ''))) found.push(`${rel(file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('ADR numbers are unique, and each title carries its file number', () => {
    const adrs = readdirSync(join(ROOT, 'docs/adr')).filter((name) => name.endsWith('.md'));
    const byNumber = new Map<number, string[]>();
    const mistitled: string[] = [];
    for (const name of adrs) {
      const m = /^(\d{4})-[a-z0-9-]+\.md$/.exec(name);
      if (!m) {
        mistitled.push(`${name}: not NNNN-title.md`);
        continue;
      }
      const n = Number(m[1]);
      byNumber.set(n, [...(byNumber.get(n) ?? []), name]);
      const title = readFileSync(join(ROOT, 'docs/adr', name), 'utf8').split('\n')[0];
      if (!new RegExp(`^# ${n}\\. `).test(title)) mistitled.push(`${name}: title "${title}" does not start with "# ${n}. "`);
    }
    const duplicates = [...byNumber].filter(([, names]) => names.length > 1).map(([n, names]) => `${n}: ${names.join(', ')}`);
    expect(duplicates).toEqual([]);
    expect(mistitled).toEqual([]);
  });
});

describe('the link checker itself', () => {
  it('reads inline, reference and HTML links, but not links inside code', () => {
    const md = [
      'See [a](docs/a.md) and ![img](img.png "title") and <a href="b.md#x">b</a>.',
      '[ref]: ./c.md',
      '`[not](code.md)` and ``[nor](this.md)``',
      '```',
      '[fenced](fenced.md)',
      '```',
      '[after](d.md#sec)',
    ].join('\n');
    expect(linkTargets(md)).toEqual(['docs/a.md', 'img.png', 'd.md#sec', './c.md', 'b.md#x']);
  });

  it('makes anchors as GitHub does', () => {
    expect(slug('Tenant settings')).toBe('tenant-settings');
    expect(slug('`POST /invoices/:id/void` — void an invoice')).toBe('post-invoicesidvoid--void-an-invoice');
    expect(slug('Webhooks: events & signatures (v1)')).toBe('webhooks-events--signatures-v1');
    expect([...anchorsOf('# A\n## A\n```\n# not\n```\n## B')]).toEqual(['a', 'a-1', 'b']);
  });

  it('flags a link to the README of today (../shared) as outside the repository', () => {
    expect(brokenLink(join(ROOT, 'README.md'), '../shared/api-contract.md')).toBe('points outside the repository');
    expect(brokenLink(join(ROOT, 'README.md'), 'docs/no-such-file.md')).toBe('no such file');
    expect(brokenLink(join(ROOT, 'README.md'), '#no-such-heading')).toBe('no heading #no-such-heading in README.md');
    expect(brokenLink(join(ROOT, 'README.md'), 'docs/architecture.md')).toBeUndefined();
    expect(OUTSIDE_SPEC.some((re) => re.test('- Contract: [`../shared/api-contract.md`](../shared/api-contract.md)'))).toBe(true);
    expect(OUTSIDE_SPEC.some((re) => re.test('see `src/shared/http/json-body.ts`'))).toBe(false);
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { STATUS_BY_CODE } from '../../../src/shared/http/problem';

/**
 * docs/api.md is the project's API guide. It stays current: every route the application registers
 * (the controllers' decorators under their @Controller prefix, and the few routes registered on
 * Fastify directly) is described there as `METHOD /path`, and every `METHOD /path` it shows is a
 * route that exists.
 */
const ROOT = resolve(__dirname, '../../..');
const SRC = join(ROOT, 'src');
const API_PREFIX = 'api/v1';

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path, suffix) : name.endsWith(suffix) ? [path] : [];
  });
}

const METHOD = '(Get|Post|Put|Patch|Delete|Head|Options|All)';
const literal = (arg: string | undefined) => (arg ?? '').trim().replace(/^['"`]|['"`]$/g, '');
const join2 = (...parts: string[]) => '/' + parts.flatMap((p) => p.split('/')).filter(Boolean).join('/');

/** `GET /invoices/:id` for each handler of a controller file (path without the global prefix). */
export function routesOfController(source: string): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  // A file may hold several controllers: each handler belongs to the last @Controller above it.
  const tokens = [...source.matchAll(new RegExp(`@Controller\\(([^)]*)\\)|@${METHOD}\\(([^)]*)\\)`, 'g'))];
  let prefix: string | undefined;
  for (const t of tokens) {
    if (t[0].startsWith('@Controller')) {
      const arg = t[1].trim();
      if (arg !== '' && !/^['"`]/.test(arg)) throw new Error(`@Controller(${arg}): only a string literal prefix can be read`);
      prefix = literal(arg);
      continue;
    }
    if (prefix === undefined) continue;
    const arg = t[3].trim();
    if (arg !== '' && !/^['"`]/.test(arg)) throw new Error(`@${t[2]}(${arg}): only a string literal path can be read`);
    routes.push({ method: t[2].toUpperCase(), path: join2(prefix, literal(arg)) });
  }
  return routes;
}

/** Routes outside the global prefix (app.factory.ts: setGlobalPrefix's exclude list). */
function excludedFromPrefix(): Set<string> {
  const factory = readFileSync(join(SRC, 'app.factory.ts'), 'utf8');
  const exclude = /exclude:\s*\[([\s\S]*?)\]\s*,?\s*\}/.exec(factory)?.[1] ?? '';
  return new Set([...exclude.matchAll(/path:\s*'([^']+)'/g)].map((m) => join2(m[1])));
}

/** Every route the application serves, as the full path a client calls. */
function registeredRoutes(): string[] {
  const excluded = excludedFromPrefix();
  const routes = new Set<string>();
  for (const file of filesUnder(SRC, '.controller.ts')) {
    for (const r of routesOfController(readFileSync(file, 'utf8'))) {
      routes.add(`${r.method} ${excluded.has(r.path) ? r.path : join2(API_PREFIX, r.path)}`);
    }
  }
  // Registered on Fastify itself (metrics) and by SwaggerModule.setup (UI and JSON document).
  for (const file of filesUnder(SRC, '.ts')) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\bfastify\.(get|post|put|patch|delete)\(\s*'([^']+)'/g)) routes.add(`${m[1].toUpperCase()} ${m[2]}`);
  }
  const factory = readFileSync(join(SRC, 'app.factory.ts'), 'utf8');
  const docs = /SwaggerModule\.setup\(\s*'([^']+)'/.exec(factory)?.[1];
  const json = /jsonDocumentUrl:\s*`\$\{API_PREFIX\}\/([^`]+)`/.exec(factory)?.[1];
  if (docs) routes.add(`GET ${join2(docs)}`);
  if (json) routes.add(`GET ${join2(API_PREFIX, json)}`);
  return [...routes].sort();
}

/** `:id`, `:application_id`, `{id}` all compare equal. */
const normalize = (route: string) => route.replace(/\/(:[A-Za-z_]+|\{[A-Za-z_]+\})/g, '/:param');

/** `METHOD /path` mentions in a markdown text; paths without /api/v1 are taken as under it unless they exist outside it. */
export function mentionedRoutes(markdown: string, outsidePrefix: ReadonlySet<string>): Set<string> {
  const found = new Set<string>();
  for (const m of markdown.matchAll(/\b(GET|POST|PUT|PATCH|DELETE)\s+(\/[A-Za-z0-9_:{}\/.-]*[A-Za-z0-9_}])/g)) {
    let path = m[2];
    if (!path.startsWith(`/${API_PREFIX}/`) && !outsidePrefix.has(path)) path = join2(API_PREFIX, path);
    found.add(normalize(`${m[1]} ${path}`));
  }
  return found;
}

describe('docs/api.md covers every route', () => {
  const routes = registeredRoutes();
  const outside = new Set(routes.map((r) => r.split(' ')[1]).filter((p) => !p.startsWith(`/${API_PREFIX}/`)));
  const guide = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
  const mentioned = mentionedRoutes(guide, outside);

  it('reads the routes from the source', () => {
    // Sanity: the parser sees the controllers, the routes outside the prefix and Swagger's.
    expect(routes).toEqual(expect.arrayContaining(['POST /api/v1/auth/token', 'GET /api/v1/invoices/:id', 'GET /health', 'GET /health/ready', 'GET /metrics', 'GET /docs', 'GET /api/v1/openapi.json']));
    expect(routes.length).toBeGreaterThan(40);
  });

  it('mentions every registered route as METHOD /path', () => {
    const missing = routes.filter((r) => !mentioned.has(normalize(r)));
    expect(missing).toEqual([]);
  });

  it('mentions no route that does not exist', () => {
    const known = new Set(routes.map(normalize));
    const stale = [...mentioned].filter((r) => !known.has(r));
    expect(stale).toEqual([]);
  });
});

describe('the route reader itself', () => {
  it('joins the controller prefix and the handler path, several controllers per file', () => {
    const source = [
      "@Controller('invoices')",
      'class A {',
      '  @Get() list() {}',
      "  @Post(':id/write-off') writeOff() {}",
      '}',
      "@Controller('customers')",
      'class B {',
      "  @Get(':id/statement') statement() {}",
      "  @Delete(\":id/applications/:application_id\") reverse() {}",
      '}',
    ].join('\n');
    expect(routesOfController(source)).toEqual([
      { method: 'GET', path: '/invoices' },
      { method: 'POST', path: '/invoices/:id/write-off' },
      { method: 'GET', path: '/customers/:id/statement' },
      { method: 'DELETE', path: '/customers/:id/applications/:application_id' },
    ]);
  });

  it('refuses a prefix it cannot read rather than missing routes', () => {
    expect(() => routesOfController('@Controller(PREFIX)\nclass A { @Get() x() {} }')).toThrow(/string literal/);
  });

  it('finds mentions with or without /api/v1, and parameters by any name', () => {
    const md = 'Call `POST /payments/{id}/match`, then GET /api/v1/invoices/:invoice_id. GET /health is public.';
    expect([...mentionedRoutes(md, new Set(['/health']))].sort()).toEqual(['GET /api/v1/invoices/:param', 'GET /health', 'POST /api/v1/payments/:param/match']);
  });

  it('sees every controller file', () => {
    const controllers = filesUnder(SRC, '.controller.ts').map((f) => relative(SRC, f).split(sep).join('/'));
    expect(controllers.length).toBeGreaterThanOrEqual(10);
  });
});

describe('docs/api.md lists every problem code', () => {
  it('has a row `code` | status for each code the service answers', () => {
    const guide = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    const rows = new Map([...guide.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]));
    const wrong = Object.entries(STATUS_BY_CODE)
      .filter(([code, status]) => rows.get(code) !== status)
      .map(([code, status]) => `${code} ${status} (guide: ${rows.get(code) ?? 'missing'})`);
    expect(wrong).toEqual([]);
  });
});

/** After `open` (an index of '('), the index just past its matching ')'. */
function skipBalanced(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"' || c === '`') {
      const end = text.indexOf(c, i + 1);
      i = end < 0 ? text.length : end;
      continue;
    }
    if (c === '(') depth++;
    if (c === ')' && --depth === 0) return i + 1;
  }
  return text.length;
}

/** Names of the properties documented with @ApiProperty / @ApiPropertyOptional in a source text. */
export function documentedFields(source: string): string[] {
  const names: string[] = [];
  for (const m of source.matchAll(/@ApiProperty(?:Optional)?\(/g)) {
    let i = skipBalanced(source, m.index + m[0].length - 1);
    // Further decorators on the same property: @IsOptional() @IsString() …
    for (;;) {
      const rest = /^\s*@\w+(?=\()/.exec(source.slice(i));
      if (!rest) break;
      i = skipBalanced(source, i + rest[0].length);
    }
    const name = /^\s*(?:readonly\s+)?([a-z_][a-z0-9_]*)\??\s*:/.exec(source.slice(i));
    if (name) names.push(name[1]);
  }
  return names;
}

describe('docs/api.md names every field', () => {
  it('mentions each request and response field the OpenAPI document describes', () => {
    const guide = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    const files = filesUnder(SRC, '.ts').filter((f) => /\.(request|response|dto|controller)\.ts$/.test(f));
    const fields = new Set(files.flatMap((f) => documentedFields(readFileSync(f, 'utf8'))));
    expect(fields.size).toBeGreaterThan(150);
    const missing = [...fields].filter((name) => !new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`).test(guide)).sort();
    expect(missing).toEqual([]);
  });

  it('reads single- and multi-line property declarations', () => {
    const source = [
      "  @ApiProperty({ example: 'x' }) id: string;",
      '  @ApiPropertyOptional({ description: "a (b)" }) @IsOptional() @IsString() memo?: string | null;',
      '  @ApiProperty({',
      "    type: [Object],",
      "    description: 'Short pays (§13)',",
      '  })',
      '  write_offs: unknown[];',
    ].join('\n');
    expect(documentedFields(source)).toEqual(['id', 'memo', 'write_offs']);
  });
});

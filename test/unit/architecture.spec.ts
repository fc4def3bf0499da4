import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Architecture rules (docs/architecture.md) checked on the source text, so they hold for
 * modules written later too: the domain layer is framework-free, and modules talk to each
 * other only through their index.ts.
 */
const SRC = resolve(__dirname, '../../src');
const MODULES = join(SRC, 'modules');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function walkJs(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walkJs(path) : /\.(js|ts)$/.test(name) ? [path] : [];
  });
}

/** Every module specifier a file imports, re-exports, requires or loads dynamically. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found = new Set<string>();
  for (const re of [/\b(?:import|export)\s[^;'"]*?from\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\b(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g]) {
    for (const m of text.matchAll(re)) found.add(m[1]);
  }
  return [...found];
}

const rel = (path: string) => relative(SRC, path).split(sep).join('/');
/** `customers` for src/modules/customers/..., undefined elsewhere. */
const moduleOf = (path: string) => (path.startsWith(MODULES + sep) ? relative(MODULES, path).split(sep)[0] : undefined);

const files = walk(SRC);
const moduleFiles = files.filter((f) => moduleOf(f) !== undefined);

describe('architecture', () => {
  it('finds the source files it checks', () => {
    expect(moduleFiles.length).toBeGreaterThan(10);
    expect(moduleFiles.some((f) => rel(f).startsWith('modules/auth/domain/'))).toBe(true);
  });

  it('domain/ imports no framework, ORM or validation library', () => {
    const FORBIDDEN = /^(@nestjs\/|typeorm|class-validator|class-transformer|fastify|@fastify\/|pg$|ioredis|rxjs)/;
    const violations = moduleFiles
      .filter((f) => rel(f).split('/')[2] === 'domain')
      .flatMap((f) => importsOf(f).filter((spec) => FORBIDDEN.test(spec)).map((spec) => `${rel(f)} imports ${spec}`));
    expect(violations).toEqual([]);
  });

  it("domain/ imports only its own domain, the shared kernel's domain and other modules' index.ts", () => {
    const violations = moduleFiles
      .filter((f) => rel(f).split('/')[2] === 'domain')
      .flatMap((f) =>
        importsOf(f)
          .filter((spec) => spec.startsWith('.'))
          .map((spec) => resolve(dirname(f), spec))
          .filter((target) => {
            const layer = rel(target).split('/');
            if (layer[0] === 'shared') return layer[1] !== 'domain'; // the shared kernel's domain only
            if (layer[0] !== 'modules') return true;
            if (layer[1] === moduleOf(f)) return layer[2] !== 'domain';
            return layer.length > 2 && layer[2] !== 'index'; // another module: its public index.ts only
          })
          .map((target) => `${rel(f)} imports ${rel(target)}`),
      );
    expect(violations).toEqual([]);
  });

  it("modules use each other only through the other module's index.ts", () => {
    const violations = moduleFiles.flatMap((f) =>
      importsOf(f)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => resolve(dirname(f), spec))
        .filter((target) => {
          const other = moduleOf(target);
          if (!other || other === moduleOf(f)) return false;
          const inside = rel(target).split('/').slice(2).join('/');
          return inside !== '' && inside !== 'index';
        })
        .map((target) => `${rel(f)} imports ${rel(target)}`),
    );
    expect(violations).toEqual([]);
  });

  it('application/ reaches infrastructure only through ports: no infrastructure import, its own or the shared kernel\'s', () => {
    const DRIVERS = /^(typeorm|pg$|ioredis|fastify|@fastify\/)/;
    const violations = moduleFiles
      .filter((f) => rel(f).split('/')[2] === 'application')
      .flatMap((f) =>
        importsOf(f).flatMap((spec) => {
          if (DRIVERS.test(spec)) return [`${rel(f)} imports ${spec}`];
          if (!spec.startsWith('.')) return [];
          const target = rel(resolve(dirname(f), spec));
          return target.split('/').includes('infrastructure') ? [`${rel(f)} imports ${target}`] : [];
        }),
      );
    expect(moduleFiles.some((f) => rel(f).split('/')[2] === 'application')).toBe(true);
    expect(violations).toEqual([]);
  });

  it('the shared kernel depends on no module', () => {
    const violations = files
      .filter((f) => rel(f).startsWith('shared/'))
      .flatMap((f) =>
        importsOf(f)
          .filter((spec) => spec.startsWith('.'))
          .map((spec) => resolve(dirname(f), spec))
          .filter((target) => moduleOf(target) !== undefined)
          .map((target) => `${rel(f)} imports ${rel(target)}`),
      );
    expect(violations).toEqual([]);
  });

  it('the open / overdue invoice rule is written once (shared/domain/receivable.ts), for the service and its benchmark baseline', () => {
    // Migrations already applied somewhere are history: they keep the text they ran with.
    const FROZEN_BEFORE = 1763801200000;
    const RULE = [/'open'\s*,\s*'partially_paid'/, /'partially_paid'\s*,\s*'open'/, /\btotal\s*>\s*(\w+\.)?amount_paid\b/, /status\s*===?\s*'partially_paid'\s*\)?\s*(\|\||&&)/];
    const bench = resolve(SRC, '../bench');
    const candidates = [...files, ...walkJs(bench)].filter((f) => {
      const migration = /migrations[\\/](\d{13})-/.exec(f);
      return !(migration && Number(migration[1]) < FROZEN_BEFORE) && !f.endsWith(join('shared', 'domain', 'receivable.ts'));
    });
    const violations = candidates.filter((f) => {
      const text = readFileSync(f, 'utf8');
      return RULE.some((re) => re.test(text));
    });
    expect(candidates.some((f) => f.includes(join('bench', 'baseline')))).toBe(true);
    expect(violations.map((f) => relative(resolve(SRC, '..'), f))).toEqual([]);
  });

  it('the schema comes only from migrations', () => {
    const violations = files.filter((f) => /synchronize:\s*true/.test(readFileSync(f, 'utf8'))).map(rel);
    expect(violations).toEqual([]);
  });

  it('every migration file is listed in MIGRATIONS', () => {
    const dir = join(SRC, 'migrations');
    const index = readFileSync(join(dir, 'index.ts'), 'utf8');
    const missing = readdirSync(dir)
      .filter((name) => /^\d{13}-.+\.ts$/.test(name))
      .filter((name) => !index.includes(`./${name.replace(/\.ts$/, '')}'`));
    expect(missing).toEqual([]);
  });
});

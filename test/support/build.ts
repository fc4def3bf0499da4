import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
const LOCK = join(DIST, '.build-lock');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** True when some src/**.ts is newer than its compiled dist/**.js (or has none). */
function stale(): boolean {
  return sources(SRC).some((file) => {
    const out = join(DIST, relative(SRC, file)).replace(/\.ts$/, '.js');
    return !existsSync(out) || statSync(out).mtimeMs < statSync(file).mtimeMs;
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Compiles src/ to dist/ (incremental tsc, a second or two when little changed) for tests that
 * run the built server or CLI as a child process. Test files in parallel workers take a lock
 * directory so only one tsc writes dist/ at a time. Type errors in files being edited elsewhere
 * do not stop tsc from emitting, so only a missing output counts as a failed build.
 */
export async function ensureBuilt(entry = 'main.js'): Promise<string> {
  const output = join(DIST, entry);
  mkdirSync(DIST, { recursive: true });
  for (let waited = 0; ; waited += 200) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      // A lock left by a killed run would block forever: take it over after two minutes.
      if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > 120_000) rmSync(LOCK, { recursive: true, force: true });
      await sleep(200);
    }
  }
  try {
    if (stale() || !existsSync(output)) {
      try {
        execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'pipe' });
      } catch (error) {
        if (!existsSync(output)) throw new Error(`build failed: ${String((error as { stdout?: Buffer }).stdout ?? error)}`);
      }
    }
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
  return output;
}

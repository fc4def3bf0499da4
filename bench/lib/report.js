'use strict';
/** Machine and version facts for the report, and the writer of docs/benchmarks.md. */
const os = require('node:os');
const { execFileSync } = require('node:child_process');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { markdownTable, cpuMarkdown, targetsMarkdown } = require('./table');

const ROOT = join(__dirname, '..', '..');

function pkgVersion(name) {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return '?';
  }
}

function gitCommit() {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty ? `${sha} (with uncommitted changes)` : sha;
  } catch {
    return 'unknown';
  }
}

function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model?.replace(/\s+/g, ' ').trim() ?? 'unknown',
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    memoryGb: (os.totalmem() / 1024 ** 3).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

function versions(postgres) {
  const service = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  return {
    service: `${service} (${gitCommit()})`,
    node: process.version,
    postgres,
    nestjs: pkgVersion('@nestjs/core'),
    fastify: pkgVersion('fastify'),
    typeorm: pkgVersion('typeorm'),
    pg: pkgVersion('pg'),
    autocannon: pkgVersion('autocannon'),
  };
}

function mb(bytes) {
  return bytes ? `${(bytes / 1048576).toFixed(0)} MB` : 'n/a';
}

/** The generated block for one run (full or quick). */
function runSection({ mode, date, machine: m, versions: v, seed, settings, rows, peakRssBytes, baselinePeakRssBytes, targets }) {
  const met = targets.filter((t) => t.met).length;
  return [
    `Run: ${date} · mode \`${mode}\` · ${settings.connections} connections · ${settings.duration} s per scenario and server after ${settings.warmup} s warm-up`,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB RAM, ${m.os}. The service, the baseline, PostgreSQL and autocannon share it.`,
    '',
    `Versions: service ${v.service}; Node ${v.node}; ${v.postgres}; NestJS ${v.nestjs}; Fastify ${v.fastify}; TypeORM ${v.typeorm}; pg ${v.pg}; autocannon ${v.autocannon}.`,
    '',
    `Data: ${seed}`,
    '',
    markdownTable(rows),
    '',
    'CPU per answered request, in ms, while each server was loaded (the server process; all of PostgreSQL):',
    '',
    cpuMarkdown(rows),
    '',
    `Peak RSS of the service (VmHWM): **${mb(peakRssBytes)}** (baseline: ${mb(baselinePeakRssBytes)}).`,
    '',
    `Targets met: ${met} of ${targets.length}.`,
    '',
    targetsMarkdown(targets),
  ].join('\n');
}

const SKELETON = `# Benchmarks

\`npm run bench\` seeds an embedded PostgreSQL (1,000,000 invoices, 10,000 customers, 300,000 payments),
starts the service and a raw baseline (bench/baseline/server.js: Fastify + pg running the same SQL with
no framework and no auth), and loads both with autocannon, scenario by scenario, in the same run.
\`npm run bench -- --quick\` does the same on a small seed. The tables below are rewritten by the runner;
the text around them is not.

## Full run (\`npm run bench\`)

<!-- bench:full:begin -->
(not run yet)
<!-- bench:full:end -->

## Quick run (\`npm run bench -- --quick\`)

<!-- bench:quick:begin -->
(not run yet)
<!-- bench:quick:end -->
`;

/** Replaces the block between this mode's markers, keeping everything written around it. */
function writeReport(file, mode, section) {
  let text = existsSync(file) ? readFileSync(file, 'utf8') : SKELETON;
  const begin = `<!-- bench:${mode}:begin -->`;
  const end = `<!-- bench:${mode}:end -->`;
  if (!text.includes(begin) || !text.includes(end)) text = `${text.trimEnd()}\n\n## ${mode} run\n\n${begin}\n${end}\n`;
  const before = text.slice(0, text.indexOf(begin) + begin.length);
  const after = text.slice(text.indexOf(end));
  writeFileSync(file, `${before}\n${section}\n${after}`);
}

module.exports = { machine, versions, runSection, writeReport, mb };

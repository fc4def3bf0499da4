'use strict';
/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and prints where the service spent its CPU:
 * self time by package (node_modules/<pkg>, the service's own dist/, node internals, GC)
 * and the top functions by self time.
 */
const { readFileSync } = require('node:fs');

function category(url, name) {
  if (!url) {
    if (name === '(garbage collector)') return 'GC';
    if (name === '(idle)') return '(idle)';
    if (name === '(program)') return '(program: native, not attributed)';
    return `native ${name}`;
  }
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith('node:')) return 'node internals';
  const d = /\/dist\/(modules\/[^/]+|shared\/[^/]+|[^/]+)/.exec(url);
  if (d) return `service ${d[1]}`;
  return url;
}

function summariseProfile(file, top = 25) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  // timeDeltas[i] is the time before sample i: attribute it to that sample's node.
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0) || 1;
  const idle = [...self.entries()].filter(([id]) => byId.get(id).callFrame.functionName === '(idle)').reduce((a, [, t]) => a + t, 0);
  const busy = total - idle || 1;
  const byCat = new Map();
  const byFn = new Map();
  for (const [id, t] of self) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    if (functionName === '(idle)') continue;
    const cat = category(url, functionName);
    byCat.set(cat, (byCat.get(cat) ?? 0) + t);
    const key = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/')}:${lineNumber + 1}` : ''}`;
    byFn.set(key, (byFn.get(key) ?? 0) + t);
  }
  const pct = (t) => `${((100 * t) / busy).toFixed(1).padStart(5)}%`;
  const lines = [`busy ${(busy / 1e6).toFixed(1)} s of ${(total / 1e6).toFixed(1)} s sampled; self time by package:`];
  for (const [k, t] of [...byCat].sort((a, b) => b[1] - a[1]).slice(0, 20)) lines.push(`  ${pct(t)}  ${k}`);
  lines.push(`top ${top} functions by self time:`);
  for (const [k, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(t)}  ${k}`);
  return lines.join('\n');
}

module.exports = { summariseProfile };

if (require.main === module) process.stdout.write(`${summariseProfile(process.argv[2], Number(process.argv[3] ?? 25))}\n`);

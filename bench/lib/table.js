'use strict';
/**
 * The benchmark's arithmetic, kept pure (no I/O) so a unit test can check it:
 * autocannon result → row numbers, service/baseline ratios, the targets, and the
 * table as console text and as Markdown.
 */

/** req/s counts only 2xx responses: a fast 429 or 500 must not look like throughput. */
function summarize(result) {
  const seconds = Number(result.duration) || 0;
  const ok = Number(result['2xx'] ?? 0);
  const errors = Number(result.errors ?? 0) + Number(result.non2xx ?? 0) + Number(result.mismatches ?? 0);
  // autocannon counts timeouts inside `errors` already.
  return {
    rps: seconds > 0 ? ok / seconds : 0,
    p50: Number(result.latency?.p50 ?? 0),
    p99: Number(result.latency?.p99 ?? 0),
    errors,
    requests: ok + errors,
    seconds,
  };
}

/** service req/s ÷ baseline req/s; null when the baseline served nothing. */
function ratio(service, baseline) {
  if (!service || !baseline || !(baseline.rps > 0)) return null;
  return service.rps / baseline.rps;
}

/**
 * Each scenario may carry targets:
 *   minRatio      service/baseline req/s at least this
 *   maxP99Ms      service p99 below this (ms)
 *   p99Within     { scenario: id, factor } — service p99 at most factor × that scenario's service p99
 * plus one run-wide target: peak RSS below maxRssMb.
 */
function evaluateTargets(rows, run = {}) {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out = [];
  for (const row of rows) {
    const t = row.targets || {};
    if (t.minRatio !== undefined) {
      const r = ratio(row.service, row.baseline);
      out.push({
        scenario: row.id,
        target: `req/s ≥ ${t.minRatio}× baseline`,
        value: r === null ? 'n/a' : `${fmtRatio(r)}×`,
        met: r !== null && r >= t.minRatio,
      });
    }
    if (t.maxP99Ms !== undefined && row.service) {
      // No answer within the run is no latency at all, not a fast one.
      const answered = row.service.rps > 0;
      out.push({
        scenario: row.id,
        target: `p99 < ${t.maxP99Ms} ms`,
        value: answered ? `${fmtMs(row.service.p99)} ms` : 'no answer',
        met: answered && row.service.p99 < t.maxP99Ms,
      });
    }
    if (t.p99Within && row.service) {
      const other = byId.get(t.p99Within.scenario);
      const limit = other && other.service ? other.service.p99 * t.p99Within.factor : null;
      out.push({
        scenario: row.id,
        target: `p99 ≤ ${t.p99Within.factor}× ${t.p99Within.scenario} p99`,
        value: limit === null ? 'n/a' : `${fmtMs(row.service.p99)} ms vs ${fmtMs(limit)} ms`,
        met: limit !== null && row.service.p99 <= limit,
      });
    }
  }
  if (run.maxRssMb !== undefined) {
    const mb = run.peakRssBytes === undefined || run.peakRssBytes === null ? null : run.peakRssBytes / 1048576;
    out.push({
      scenario: 'service',
      target: `peak RSS < ${run.maxRssMb} MB`,
      value: mb === null ? 'n/a' : `${mb.toFixed(0)} MB`,
      met: mb !== null && mb < run.maxRssMb,
    });
  }
  return out;
}

function fmtRps(n) {
  if (n === null || n === undefined) return '-';
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1);
}

function fmtMs(n) {
  if (n === null || n === undefined) return '-';
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

function fmtRatio(r) {
  return r === null || r === undefined ? '-' : r.toFixed(2);
}

const HEADER = ['Scenario', 'Service req/s', 'p50 ms', 'p99 ms', 'errors', 'Baseline req/s', 'p50 ms', 'p99 ms', 'errors', 'Service / baseline'];

function tableCells(rows) {
  return rows.map((row) => {
    const s = row.service;
    const b = row.baseline;
    const r = ratio(s, b);
    return [
      row.name,
      s ? fmtRps(s.rps) : '-',
      s ? fmtMs(s.p50) : '-',
      s ? fmtMs(s.p99) : '-',
      s ? String(s.errors) : '-',
      b ? fmtRps(b.rps) : '-',
      b ? fmtMs(b.p50) : '-',
      b ? fmtMs(b.p99) : '-',
      b ? String(b.errors) : '-',
      r === null ? '-' : `${fmtRatio(r)}×`,
    ];
  });
}

function markdownTable(rows) {
  const lines = [`| ${HEADER.join(' | ')} |`, `|${HEADER.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const cells of tableCells(rows)) lines.push(`| ${cells.join(' | ')} |`);
  return lines.join('\n');
}

function consoleTable(rows) {
  const cells = [HEADER, ...tableCells(rows)];
  const widths = HEADER.map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  const line = (c) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/**
 * CPU per answered request while each server was loaded: the server process's own and
 * PostgreSQL's (everything it ran in that window, background work included).
 */
function cpuMarkdown(rows) {
  const ms = (n) => (n === null || n === undefined ? '-' : n.toFixed(2));
  const lines = [
    '| Scenario | Service CPU ms | PostgreSQL CPU ms | Baseline CPU ms | PostgreSQL CPU ms |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const row of rows) {
    lines.push(`| ${row.name} | ${ms(row.service?.cpuMs)} | ${ms(row.service?.pgCpuMs)} | ${ms(row.baseline?.cpuMs)} | ${ms(row.baseline?.pgCpuMs)} |`);
  }
  return lines.join('\n');
}

function targetsMarkdown(results) {
  const lines = ['| Scenario | Target | Measured | Met |', '| --- | --- | ---: | :---: |'];
  for (const t of results) lines.push(`| ${t.scenario} | ${t.target} | ${t.value} | ${t.met ? 'yes' : '**no**'} |`);
  return lines.join('\n');
}

module.exports = { summarize, ratio, evaluateTargets, markdownTable, cpuMarkdown, consoleTable, targetsMarkdown, fmtRatio, fmtMs, fmtRps };

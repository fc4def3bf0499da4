/** Types for table.js (plain CommonJS so bench/run.js runs without a build step). */
export interface RunStats {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
  seconds: number;
  /** CPU ms per answered request: the server process's, and PostgreSQL's (set by the runner). */
  cpuMs?: number | null;
  pgCpuMs?: number | null;
}
export interface ScenarioTargets {
  minRatio?: number;
  maxP99Ms?: number;
  p99Within?: { scenario: string; factor: number };
}
export interface Row {
  id: string;
  name: string;
  service: RunStats | null;
  baseline: RunStats | null;
  targets?: ScenarioTargets;
}
export interface TargetResult {
  scenario: string;
  target: string;
  value: string;
  met: boolean;
}
export function summarize(result: Record<string, any>): RunStats;
export function ratio(service: RunStats | null, baseline: RunStats | null): number | null;
export function evaluateTargets(rows: Row[], run?: { maxRssMb?: number; peakRssBytes?: number | null }): TargetResult[];
export function markdownTable(rows: Row[]): string;
export function cpuMarkdown(rows: Row[]): string;
export function consoleTable(rows: Row[]): string;
export function targetsMarkdown(results: TargetResult[]): string;
export function fmtRatio(r: number | null | undefined): string;
export function fmtMs(n: number | null | undefined): string;
export function fmtRps(n: number | null | undefined): string;

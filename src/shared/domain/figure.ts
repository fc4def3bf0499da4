/**
 * A sum the service computes over a customer's history (balance, aging, totals): exact whatever
 * its size. Every amount a client sends is at most 10^12 and a document's total stays below 2^53
 * (its line math refuses more), but ten thousand such invoices already pass 2^53, where a JSON
 * number read as a double is no longer exact. Within ±(2^53 − 1) a figure is a number; beyond,
 * a bigint, which responses write as the exact integer (ADR 17, "Exact figures").
 */
export type Figure = number | bigint;

const MAX = BigInt(Number.MAX_SAFE_INTEGER);

export function figure(value: bigint): Figure {
  return value > MAX || value < -MAX ? value : Number(value);
}

export function toBigInt(value: Figure): bigint {
  return typeof value === 'bigint' ? value : BigInt(value);
}

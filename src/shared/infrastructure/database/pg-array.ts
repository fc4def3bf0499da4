/**
 * A PostgreSQL array literal (text form) of the JSON texts of `values`, for a `jsonb[]`
 * parameter: exactly what node-postgres writes for `values.map((v) => JSON.stringify(v))`
 * (`{"…","…"}`, each text quoted with `"` and `\` escaped by a backslash, NULL for undefined),
 * built in one `JSON.stringify` pass instead of a regular-expression escape and a concatenation
 * per element: a bank import group's outbox carries megabytes of event data (docs/benchmarks.md).
 *
 * Why JSON.stringify escapes exactly as an array literal needs: the elements are JSON texts,
 * which hold no control character and no lone surrogate (JSON.stringify escapes those as
 * `\n`, `\u…`); on such a string JSON.stringify escapes only `"` and `\`, each with a
 * backslash, and wraps it in `"` — an array element's quoting. A value with no JSON text
 * (undefined) is NULL, as node-postgres writes it.
 */
export function jsonArrayLiteral(values: readonly unknown[]): string {
  const texts = values.map((v) => JSON.stringify(v) as string | undefined);
  if (texts.includes(undefined)) return `{${texts.map((t) => (t === undefined ? 'NULL' : JSON.stringify(t))).join(',')}}`;
  return `{${JSON.stringify(texts).slice(1, -1)}}`;
}

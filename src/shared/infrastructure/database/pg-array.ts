/**
 * A parameter as node-postgres would send it, with arrays of strings, numbers, booleans and nulls
 * (the import's `unnest` columns: ids, amounts, statuses) written out here as the array literal
 * node-postgres' own `arrayString` writes — `{"a","b",NULL}`, each element quoted with `"` and `\`
 * escaped — by a join instead of two regular-expression replaces and a concatenation per element
 * (docs/adr/0053). Anything else (dates, buffers, objects in the array) is left to node-postgres.
 */
export function arrayParameter(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const literal = plainArrayLiteral(value);
  return literal === undefined ? value : literal;
}

const NEEDS_ESCAPE = /["\\]/;

function plainArrayLiteral(values: readonly unknown[]): string | undefined {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) parts[i] = 'NULL';
    else if (typeof v === 'string') parts[i] = NEEDS_ESCAPE.test(v) ? `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `"${v}"`;
    else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') parts[i] = `"${v.toString()}"`;
    else if (Array.isArray(v)) {
      const inner = plainArrayLiteral(v);
      if (inner === undefined) return undefined;
      parts[i] = inner;
    } else return undefined;
  }
  return `{${parts.join(',')}}`;
}

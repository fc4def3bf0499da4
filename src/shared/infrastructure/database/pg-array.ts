/**
 * A parameter as node-postgres would send it, with arrays of strings, numbers, booleans, dates and
 * nulls (the import's `unnest` columns: ids, amounts, statuses, timestamps) written out here as the
 * array literal node-postgres' own `arrayString` writes — `{"a","b",NULL}`, each element quoted with
 * `"` and `\` escaped — by a join instead of two regular-expression replaces and a concatenation per
 * element (docs/adr/0053). A date is written by node-postgres' own `prepareValue` (its local-time text,
 * or UTC with `parseInputDatesAsUTC`), once per run of equal instants: a group's rows mostly share one
 * (docs/adr/0058). Anything else (buffers, objects in the array) is left to node-postgres.
 */
export function arrayParameter(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const literal = plainArrayLiteral(value, { time: NaN, text: '' });
  return literal === undefined ? value : literal;
}

// node-postgres's own serialisation of a value (plain CommonJS, no types).
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };

const NEEDS_ESCAPE = /["\\]/;

/** The last date written in this parameter: its instant and text (quoted, as an element). */
interface LastDate {
  time: number;
  text: string;
}

function plainArrayLiteral(values: readonly unknown[], last: LastDate): string | undefined {
  // Most of them: strings that need no escaping, numbers, booleans — one join, as `"${v}"` joined (ADR 0058).
  let plain = true;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const type = typeof v;
    if (type === 'string' ? NEEDS_ESCAPE.test(v as string) : type !== 'number' && type !== 'boolean' && type !== 'bigint') {
      plain = false;
      break;
    }
  }
  if (plain) return values.length === 0 ? '{}' : `{"${values.join('","')}"}`;
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) parts[i] = 'NULL';
    else if (typeof v === 'string') parts[i] = NEEDS_ESCAPE.test(v) ? `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `"${v}"`;
    else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') parts[i] = `"${v.toString()}"`;
    else if (v instanceof Date) {
      const time = v.getTime();
      // (An invalid date, NaN, is never equal: node-postgres writes it, and warns, each time.)
      if (time !== last.time) {
        const text = prepareValue(v) as string;
        last.time = time;
        last.text = NEEDS_ESCAPE.test(text) ? `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `"${text}"`;
      }
      parts[i] = last.text;
    } else if (Array.isArray(v)) {
      const inner = plainArrayLiteral(v, last);
      if (inner === undefined) return undefined;
      parts[i] = inner;
    } else return undefined;
  }
  return `{${parts.join(',')}}`;
}

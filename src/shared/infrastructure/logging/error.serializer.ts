/**
 * How errors appear in the logs (pino's `err` serializer). A database error is logged with what
 * an operator needs to find the fault — its class, message, SQLSTATE, constraint, table, column,
 * the SQL statement and the stack — and never with the values: not the statement's parameters
 * (which held freshly generated webhook secrets and customers' personal data), not PostgreSQL's
 * `detail` ("Key (email)=(…) already exists", "Failing row contains (…)") and not the value a
 * message quotes after a colon (`invalid input syntax for type bigint: "…"`).
 */
export function serializeError(error: unknown): Record<string, unknown> {
  if (error === null || typeof error !== 'object') return { type: typeof error, message: String(error) };
  // pino-http hands its serializers pino's own serialization of the error (a plain object with
  // `type` and every enumerable property); a direct caller hands the Error itself.
  const e = error as DatabaseErrorFields & { type?: unknown; message?: unknown; stack?: unknown; query?: unknown; driverError?: DatabaseErrorFields };
  const original = typeof e.message === 'string' ? e.message : '';
  const message = withoutValues(original);
  const out: Record<string, unknown> = { type: typeof e.type === 'string' ? e.type : (error.constructor?.name ?? 'Error'), message };
  for (const field of ['code', 'constraint', 'table', 'column', 'routine'] as const) {
    const value = e[field] ?? e.driverError?.[field];
    if (typeof value === 'string') out[field] = value;
  }
  if (typeof e.query === 'string') out.statement = e.query;
  if (typeof e.stack === 'string') out.stack = original ? e.stack.replace(original, message) : e.stack;
  return out;
}

interface DatabaseErrorFields {
  code?: unknown;
  constraint?: unknown;
  table?: unknown;
  column?: unknown;
  routine?: unknown;
}

/** `invalid input syntax for type uuid: "x"` → `invalid input syntax for type uuid: <redacted>`. */
function withoutValues(message: string): string {
  return message.replace(/(:\s+)(?:"|'|0x)[\s\S]*$/, '$1<redacted>');
}

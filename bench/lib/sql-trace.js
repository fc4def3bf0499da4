'use strict';
/**
 * Preloaded (`node -r bench/lib/sql-trace.js`) into a server whose statements are to be compared:
 * every statement a pg client sends is appended to SQL_TRACE_FILE as one JSON line (its text).
 * Used by bench/lib/payment-parity.js; costs a file write per statement, so never while measuring.
 */
const { appendFileSync } = require('node:fs');

const file = process.env.SQL_TRACE_FILE;
if (file) {
  const pg = require(require.resolve('pg', { paths: [process.cwd(), __dirname] }));
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function traced(config, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    if (text) appendFileSync(file, `${JSON.stringify(text)}\n`);
    return query.call(this, config, ...rest);
  };
}

#!/usr/bin/env node
'use strict';
/**
 * `npm run build && node bench/payments-parity.js`: posts the same payments to the service and to
 * the raw baseline, each on its own copy of one small seeded database, and compares the answers
 * and the rows written (bench/lib/payment-parity.js). Exits 1 when they differ. `npm run bench`
 * runs the same check before it loads POST /payments.
 */
const { checkPaymentParity } = require('./lib/payment-parity');

const log = (msg) => process.stdout.write(`${msg}\n`);
checkPaymentParity({ log })
  .then(({ problems, statementDifferences }) => {
    for (const d of statementDifferences) log(`statements differ: ${d}`);
    if (statementDifferences.length === 0) log('payment parity: the same statements in the same order');
    if (problems.length === 0) return log('payment parity: the baseline wrote what the service wrote');
    for (const p of problems) log(`DIFFERS ${p}`);
    process.exitCode = 1;
  })
  .catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });

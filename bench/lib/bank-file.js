'use strict';
/** The bank file of the import benchmarks (bench/bank-import.js, bench/bank-import-baseline.js). */
const { createWriteStream } = require('node:fs');

const xml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const decimal = (minor, digits) => (digits === 0 ? String(minor) : `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`);
const ZERO_DECIMAL = new Set(['jpy', 'krw', 'clp', 'vnd', 'isk', 'huf']);

/** Writes the camt.053 entry by entry (never whole in memory); resolves with the mix written. */
function writeCamt(path, invoices, entries) {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(path);
    out.on('error', reject);
    const mix = { structured: 0, free_text: 0, unidentifiable: 0 };
    // The identifiable entries (85 %) each pay an open invoice; when there are fewer open invoices
    // than that, each invoice is paid in equal shares by several entries (every share is applied).
    const identifiable = Array.from({ length: entries }, (_, n) => n % 20 < 17).filter(Boolean).length;
    const uses = Math.ceil(identifiable / invoices.length);
    const shares = (function* () {
      for (let round = 0; round < uses; round++) {
        for (const inv of invoices) {
          const share = Math.floor(inv.amount_due / uses);
          yield { inv, amount: round === uses - 1 ? inv.amount_due - share * (uses - 1) : share };
        }
      }
    })();
    mix.invoices_paid_in_shares_of = uses;
    out.write(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
<BkToCstmrStmt>
<GrpHdr><MsgId>BENCH-${entries}</MsgId><CreDtTm>2026-11-06T05:30:00</CreDtTm></GrpHdr>
<Stmt>
<Id>BENCH-${entries}-1</Id><CreDtTm>2026-11-06T05:30:00</CreDtTm>
<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>
`);
    let i = 0;
    const next = () => {
      let ok = true;
      while (i < entries && ok) {
        const n = i++;
        const kind = n % 20 < 12 ? 'structured' : n % 20 < 17 ? 'free_text' : 'unidentifiable';
        mix[kind]++;
        const { inv, amount: part } = kind === 'unidentifiable' ? { inv: invoices[n % invoices.length], amount: 0 } : shares.next().value;
        const ccy = inv.currency.toUpperCase();
        const digits = ZERO_DECIMAL.has(inv.currency) ? 0 : 2;
        const amount = kind === 'unidentifiable' ? 1_000 + ((n * 7919) % 500_000) : part;
        const payer =
          kind === 'unidentifiable'
            ? `<Dbtr><Nm>Private payer ${n}</Nm></Dbtr><DbtrAcct><Id><IBAN>NL${String(10 + (n % 89))}BANK${String(n).padStart(10, '0')}</IBAN></Id></DbtrAcct>`
            : `<Dbtr><Nm>${xml(inv.customer_name)}</Nm></Dbtr>`;
        const rmt =
          kind === 'structured'
            ? `<Strd><RfrdDocInf><Tp><CdOrPrtry><Cd>CINV</Cd></CdOrPrtry></Tp><Nb>${xml(inv.number)}</Nb></RfrdDocInf><RfrdDocAmt><RmtdAmt Ccy="${ccy}">${decimal(amount, digits)}</RmtdAmt></RfrdDocAmt></Strd>`
            : kind === 'free_text'
              ? `<Ustrd>Payment of invoice ${xml(inv.number)} thank you</Ustrd>`
              : `<Ustrd>Transfer ${n}</Ustrd>`;
        ok = out.write(
          `<Ntry><Amt Ccy="${ccy}">${decimal(amount, digits)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-11-05</Dt></BookgDt><AcctSvcrRef>BENCH-${String(n).padStart(7, '0')}</AcctSvcrRef><NtryDtls><TxDtls><RltdPties>${payer}</RltdPties><RmtInf>${rmt}</RmtInf></TxDtls></NtryDtls></Ntry>\n`,
        );
      }
      if (i < entries) return out.once('drain', next);
      out.end(`</Stmt>\n</BkToCstmrStmt>\n</Document>\n`, () => resolve(mix));
    };
    next();
  });
}

/**
 * The open invoices the file pays, as bench/bank-import.js picks them: distinct, undisputed, spread
 * over the customers (by a hash of the id), with something due.
 */
async function openInvoicesForFile(pg, tenantId, entries) {
  const { openInvoiceSql } = require('../../dist/shared/infrastructure/query/receivable.sql.js');
  const { rows } = await pg.query(
    `SELECT i.number, i.amount_due::int AS amount_due, i.currency, c.name AS customer_name
       FROM invoices i JOIN customers c ON c.tenant_id = i.tenant_id AND c.id = i.customer_id
      WHERE i.tenant_id = $1 AND ${openInvoiceSql('i.')} AND i.dispute_status IS DISTINCT FROM 'open'
        AND i.amount_due >= 100
      ORDER BY md5(i.id) LIMIT $2`,
    [tenantId, entries],
  );
  return rows;
}

module.exports = { writeCamt, openInvoicesForFile };

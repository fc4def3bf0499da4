'use strict';
/**
 * The benchmark scenarios (the issue's list). Each builds its i-th request for a target
 * ('service' or 'baseline'): both get the same paths and bodies; only the auth differs
 * (bearer token for the service, x-tenant-id for the baseline).
 */

const { openInvoiceSql } = require('../../dist/shared/infrastructure/query/receivable.sql');

const DEEP_PAGES = 1000;

/** Samples of real rows for the scenarios, read straight from the seeded database. */
async function prepareScenarioData(sql, tenant) {
  const t = tenant.tenant_id;
  const one = async (text, params) => (await sql.query(text, params)).rows;
  const invoiceIds = (await one(`SELECT id FROM invoices WHERE tenant_id = $1 ORDER BY random() LIMIT 2000`, [t])).map((r) => r.id);
  const largest =
    tenant.largest_customer?.id ??
    (await one(`SELECT customer_id AS id FROM invoices WHERE tenant_id = $1 GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`, [t]))[0].id;
  const [{ n: largestInvoices }] = await one(`SELECT count(*)::int AS n FROM invoices WHERE tenant_id = $1 AND customer_id = $2`, [t, largest]);
  // Typical customers: those closest to the median number of invoices.
  const typical = (
    await one(
      `WITH c AS (SELECT customer_id, count(*) AS n FROM invoices WHERE tenant_id = $1 AND customer_id <> $2 GROUP BY 1),
            m AS (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY n) AS med FROM c)
       SELECT customer_id, n FROM c, m ORDER BY abs(n - m.med), customer_id LIMIT 200`,
      [t, largest],
    )
  ).map((r) => ({ id: r.customer_id, invoices: Number(r.n) }));
  // Open invoices a payment can name in its reference (rule 2 of automatic matching).
  const payable = await one(
    `SELECT i.customer_id, i.number FROM invoices i
      WHERE i.tenant_id = $1 AND ${openInvoiceSql('i.')} AND i.amount_due > 100000
        AND i.dispute_status IS DISTINCT FROM 'open' AND i.customer_id <> $2
      ORDER BY random() LIMIT 2000`,
    [t, largest],
  );
  return { invoiceIds, largest, largestInvoices, typical, payable };
}

function daysAgo(n) {
  return new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
}

/** Walks the service's invoice list page by page, as a client would, to reach page 1,001. */
async function cursorAfterPages(serviceUrl, token, pages, log) {
  let cursor = null;
  const started = Date.now();
  for (let p = 0; p < pages; p++) {
    const res = await fetch(`${serviceUrl}/api/v1/invoices?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!res.ok) throw new Error(`walking invoice pages: page ${p + 1} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    const body = await res.json();
    if (!body.next_cursor) {
      log(`bench: the invoice list ends after ${p + 1} pages; the deep page is page ${p + 1}`);
      return { cursor, pages: p };
    }
    cursor = body.next_cursor;
  }
  log(`bench: walked ${pages} pages of invoices in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { cursor, pages };
}

const LINES = [
  [{ description: 'Consulting hours', quantity: 7.5, unit_amount: 15000, tax_rate: 8.875 }],
  [
    { description: 'Software subscription (monthly)', quantity: 12, unit_amount: 4900, discount_amount: 2000, tax_rate: 7.25 },
    { description: 'Support plan', quantity: 1, unit_amount: 49900 },
  ],
  [{ description: 'Freight and handling', quantity: 3, unit_amount: 2500 }],
];

async function buildScenarios({ data, tenant, targets, log }) {
  const pick = (list, i) => list[i % list.length];
  const tokenBody = { grant_type: 'client_credentials', client_id: tenant.client_id, client_secret: tenant.client_secret };
  const token = targets.service.headers.authorization.replace(/^Bearer /, '');
  const deep = await cursorAfterPages(targets.service.url, token, DEEP_PAGES, log);
  const from = daysAgo(364);
  const to = daysAgo(0);
  const readTargets = { maxP99Ms: 50 };
  return [
    {
      id: 'token',
      name: 'POST /auth/token',
      request: () => ({ method: 'POST', path: '/api/v1/auth/token', body: tokenBody, noAuth: true }),
      targets: {},
    },
    {
      id: 'invoice',
      name: 'GET /invoices/:id',
      request: (_t, i) => ({ path: `/api/v1/invoices/${pick(data.invoiceIds, i)}` }),
      targets: { minRatio: 0.7, ...readTargets },
      compare: true,
    },
    {
      id: 'list-first',
      name: 'GET /invoices (first page)',
      request: () => ({ path: '/api/v1/invoices?limit=25' }),
      targets: { minRatio: 0.7, ...readTargets },
      compare: true,
    },
    {
      id: 'list-deep',
      name: `GET /invoices (page ${deep.pages + 1})`,
      request: () => ({ path: `/api/v1/invoices?limit=25&cursor=${encodeURIComponent(deep.cursor)}` }),
      targets: { minRatio: 0.7, ...readTargets, p99Within: { scenario: 'list-first', factor: 1.2 } },
      compare: true,
    },
    {
      id: 'list-filtered',
      name: 'GET /invoices?status=open,partially_paid&sort=due_date',
      request: () => ({ path: '/api/v1/invoices?status=open,partially_paid&sort=due_date&limit=25' }),
      targets: { minRatio: 0.7, ...readTargets },
      compare: true,
    },
    {
      id: 'create-invoice',
      name: 'POST /invoices',
      request: (_t, i) => ({ method: 'POST', path: '/api/v1/invoices', body: { customer_id: pick(data.typical, i).id, line_items: pick(LINES, i), po_number: `PO-${10000 + (i % 90000)}` } }),
      targets: {},
    },
    {
      id: 'create-payment',
      name: 'POST /payments (auto-match by reference)',
      request: (_t, i) => {
        const inv = pick(data.payable, i);
        return { method: 'POST', path: '/api/v1/payments', body: { customer_id: inv.customer_id, amount: 100, method: 'ach', reference: `Payment for ${inv.number}` } };
      },
      targets: { minRatio: 0.5 },
      // Both apply it by rule 2 (the runner compares what each writes before loading them).
      check: (body) => (body.match?.rule !== 'reference' ? `payment was not matched by reference: ${JSON.stringify(body.match)}` : null),
    },
    {
      id: 'customer-large',
      name: `GET /customers/:id (${data.largestInvoices.toLocaleString('en-US')} invoices)`,
      request: () => ({ path: `/api/v1/customers/${data.largest}` }),
      targets: { ...readTargets },
      compare: true,
    },
    {
      id: 'statement',
      name: 'GET /customers/:id/statement (12 months)',
      request: (_t, i) => ({ path: `/api/v1/customers/${pick(data.typical, i).id}/statement?from=${from}&to=${to}` }),
      targets: { ...readTargets },
      compare: true,
    },
  ];
}

module.exports = { prepareScenarioData, buildScenarios };

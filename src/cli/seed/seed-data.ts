import { Client } from 'pg';
import { copyRow, CopyWriter } from './copy';
import { CreditNoteRow, CustomerRow, InvoiceRow, LedgerRow, PaymentRow, TenantGenerator } from './generate';
import { customerSummaryRefreshSql } from '../../migrations/1763800400000-customer-summary';
import { RECOUNT_FIGURES_SQL, recountBalanceAndOverdueSql, recountReceivableTotalsSql } from '../../modules/customers/infrastructure/customer-figures.sql';
import { overdueInvoiceSql } from '../../shared/infrastructure/query/receivable.sql';
import { normalizePayerName } from '../../shared/domain/payer';
import { ProgressBar } from './progress';
import { Random } from './random';
import { SeedOptions } from './seed-args';
import { verifyLineMath } from './verify';

export interface SeedReport {
  rows: number;
  invoices: number;
  customers: number;
  payments: number;
  applications: number;
  ledger_entries: number;
  credit_notes: number;
  refunds: number;
  write_offs: number;
  /** the customer with the most invoices (the benchmark's "customer with 10,000 invoices") */
  largest_customer: { id: string; invoices: number };
  seconds: number;
}

const CUSTOMER_COLUMNS = ['tenant_id', 'id', 'name', 'email', 'external_id', 'phone', 'billing_address', 'currency', 'payment_terms_days', 'credit_limit', 'credit_hold', 'metadata', 'version', 'created_at', 'updated_at'];
const INVOICE_COLUMNS = ['tenant_id', 'id', 'number', 'customer_id', 'status', 'currency', 'issue_date', 'due_date', 'po_number', 'memo', 'line_items', 'subtotal', 'discount_total', 'tax_total', 'total', 'amount_paid', 'dispute_status', 'dispute_reason', 'dispute_amount', 'dispute_opened_at', 'dispute_resolved_at', 'metadata', 'finalized_at', 'paid_at', 'paid_on', 'version', 'created_at', 'updated_at', 'amount_credited', 'amount_written_off'];
const PAYMENT_COLUMNS = ['tenant_id', 'id', 'customer_id', 'amount', 'amount_applied', 'currency', 'payment_date', 'method', 'reference', 'remittance', 'status', 'auto_match', 'match_status', 'match_rule', 'match_suggestions', 'metadata', 'version', 'created_at', 'updated_at', 'amount_refunded'];
const CREDIT_NOTE_COLUMNS = ['tenant_id', 'id', 'number', 'customer_id', 'invoice_id', 'status', 'currency', 'amount', 'amount_applied', 'amount_refunded', 'reason', 'version', 'created_at', 'updated_at'];
const CREDIT_APPLICATION_COLUMNS = ['tenant_id', 'id', 'credit_note_id', 'invoice_id', 'amount', 'applied_at'];
const WRITE_OFF_COLUMNS = ['tenant_id', 'id', 'invoice_id', 'amount', 'reason', 'created_at'];
const REFUND_COLUMNS = ['tenant_id', 'id', 'payment_id', 'credit_note_id', 'customer_id', 'currency', 'amount', 'created_at'];
const APPLICATION_COLUMNS = ['tenant_id', 'id', 'payment_id', 'invoice_id', 'amount', 'source', 'applied_at', 'reversed_at'];
const LEDGER_COLUMNS = ['tenant_id', 'id', 'customer_id', 'entry_date', 'type', 'source_type', 'source_id', 'reference', 'description', 'debit', 'credit', 'created_at'];

/**
 * Loads one tenant's history. Customers go first (the others reference them); invoices,
 * payments and ledger entries then stream through three COPYs on three connections at
 * once, so PostgreSQL builds their indexes in parallel while this process generates;
 * applications reference both payments and invoices and are copied once those are
 * committed. Figures the service keeps denormalised are then computed by PostgreSQL from
 * the loaded rows with the service's own formulas: the customers' figures (balance = the
 * ledger sum, overdue, history) and the tenant's invoice number counter.
 */
export async function seedTenantData(
  url: string,
  client: Client,
  tenantId: string,
  counts: { invoices: number; customers: number; payments: number },
  opts: SeedOptions,
  label: string,
): Promise<SeedReport> {
  const started = Date.now();
  const random = new Random(opts.random * 7919 + hash(tenantId));
  const generator = new TenantGenerator(random, opts.asOf, Date.now());
  const plan = generator.plan(counts, opts.largest);
  await verifyLineMath(generator, plan.customers[0]);

  const bulk = await bulkMode(client);
  const customerWriter = await CopyWriter.open(client, 'customers', CUSTOMER_COLUMNS);
  for (const c of plan.customers) await customerWriter.push(customerLine(tenantId, c));
  await customerWriter.end();
  // Payer identification (§14) looks customers up by normalised name: the same key the repository writes.
  const payerKeyWriter = await CopyWriter.open(client, 'customer_payer_keys', ['tenant_id', 'kind', 'key', 'customer_id']);
  for (const c of plan.customers) await payerKeyWriter.push(copyRow([tenantId, 'name', normalizePayerName(c.name), c.id]));
  await payerKeyWriter.end();

  const connections = await Promise.all([1, 2, 3, 4].map(() => connect(url, bulk)));
  const totals = { invoices: 0, payments: 0, applications: 0, ledger: 0, loaded: 0, creditNotes: 0, refunds: 0, writeOffs: 0 };
  let largest = { id: plan.customers[0].id, invoices: 0 };
  const bar = new ProgressBar(counts.invoices, `${label} invoices`);
  const detail = () => `generated, ${totals.loaded.toLocaleString('en-US')} loaded · ${totals.payments.toLocaleString('en-US')} payments`;
  let loading: Promise<void> = Promise.resolve();
  try {
    // Customers in groups of ~100,000 invoices: while PostgreSQL loads one group, the next
    // is generated. Within a group every table is loaded in creation order (ids are
    // time-sortable), so most index insertions land next to the previous one instead of at
    // random: about twice as fast at a million rows as loading customer by customer.
    for (const [from, to] of groups(plan.invoiceTimes.map((t) => t.length), 100_000)) {
      const batch = new TimeOrderedBatch();
      for (let c = from; c < to; c++) {
        const customer = plan.customers[c];
        const history = generator.history(customer, plan.profiles[c], plan.invoiceTimes[c], plan.invoiceNumbers[c], plan.paymentCounts[c]);
        if (history.invoices.length > largest.invoices) largest = { id: customer.id, invoices: history.invoices.length };
        for (const invoice of history.invoices) batch.add('invoices', invoice.createdAt, invoiceLine(tenantId, invoice));
        for (const payment of history.payments) {
          batch.add('payments', payment.createdAt, paymentLine(tenantId, payment));
          for (const a of payment.applications) {
            batch.add('applications', a.appliedAt, copyRow([tenantId, a.id, a.paymentId, a.invoiceId, a.amount, a.source, a.appliedAt, null]));
          }
          totals.applications += payment.applications.length;
        }
        for (const entry of history.ledger) batch.add('ledger', entry.createdAt, ledgerLine(tenantId, entry));
        for (const note of history.creditNotes) {
          batch.add('credit_notes', note.createdAt, creditNoteLine(tenantId, note));
          for (const a of note.applications) batch.add('credit_applications', a.appliedAt, copyRow([tenantId, a.id, note.id, a.invoiceId, a.amount, a.appliedAt]));
        }
        for (const w of history.writeOffs) batch.add('write_offs', w.createdAt, copyRow([tenantId, w.id, w.invoiceId, w.amount, w.reason, w.createdAt]));
        for (const f of history.refunds) batch.add('refunds', f.createdAt, copyRow([tenantId, f.id, f.paymentId, f.creditNoteId, f.customerId, f.currency, f.amount, f.createdAt]));
        totals.creditNotes += history.creditNotes.length;
        totals.refunds += history.refunds.length;
        totals.writeOffs += history.writeOffs.length;
        totals.invoices += history.invoices.length;
        totals.payments += history.payments.length;
        totals.ledger += history.ledger.length;
        bar.update(totals.invoices, detail());
        // Let the previous group's COPYs make progress between customers.
        if (c % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      const invoicesInGroup = totals.invoices;
      await loading;
      loading = loadBatch(connections, batch, bulk).then(() => {
        totals.loaded = invoicesInGroup;
        bar.update(totals.invoices, detail());
      });
    }
    await loading;
  } finally {
    await Promise.all(connections.map((x) => x.end().catch(() => undefined)));
  }
  bar.finish(detail());
  const loaded = Date.now();
  // Fresh statistics first: the checks below (and the service's first queries) need them.
  await client.query('ANALYZE customers, invoices, payments, payment_applications, ledger_entries, credit_notes, credit_note_applications, invoice_write_offs, refunds');
  await verifyReferences(client, tenantId, bulk);
  const verified = Date.now();
  await finishTenant(client, tenantId, counts.invoices, generator.creditNoteCount, opts.asOf);
  const seconds = (from: number, to: number) => ((to - from) / 1000).toFixed(1);
  process.stderr.write(
    `${label}: generated and loaded in ${seconds(started, loaded)} s, references and sums verified in ` +
      `${seconds(loaded, verified)} s, denormalised figures in ${seconds(verified, Date.now())} s\n`,
  );
  const { invoices, payments, applications, ledger, creditNotes, refunds, writeOffs } = totals;

  const rows = plan.customers.length + invoices + payments + applications + ledger + creditNotes + refunds + writeOffs;
  return {
    rows,
    invoices,
    customers: plan.customers.length,
    payments,
    applications,
    ledger_entries: ledger,
    credit_notes: creditNotes,
    refunds,
    write_offs: writeOffs,
    largest_customer: largest,
    seconds: (Date.now() - started) / 1000,
  };
}

type Table = 'invoices' | 'payments' | 'applications' | 'ledger' | 'credit_notes' | 'credit_applications' | 'write_offs' | 'refunds';
const MONTH = 30 * 86_400_000;

/** One group's rows per table, bucketed by month of creation, to be loaded in time order. */
class TimeOrderedBatch {
  readonly tables = new Map<Table, Map<number, string[]>>();

  add(table: Table, at: Date, line: string): void {
    let months = this.tables.get(table);
    if (!months) this.tables.set(table, (months = new Map()));
    const month = Math.floor(at.getTime() / MONTH);
    let lines = months.get(month);
    if (!lines) months.set(month, (lines = []));
    lines.push(line);
  }

  /** Lines of `table` oldest first: months in order, each month sorted by id (= by time). */
  *ordered(table: Table): Generator<string> {
    const months = this.tables.get(table);
    if (!months) return;
    for (const month of [...months.keys()].sort((a, b) => a - b)) {
      const lines = months.get(month)!;
      // Every line starts with "tenant_id<TAB>id" and ids sort by creation time.
      lines.sort();
      yield* lines;
      months.delete(month);
    }
  }
}

/**
 * Each table loads on its own connection, side by side; without bulk mode applications wait
 * for the others, so that their foreign keys find committed rows.
 */
async function loadBatch(connections: Client[], batch: TimeOrderedBatch, bulk: boolean): Promise<void> {
  const load = async (client: Client, table: string, columns: readonly string[], source: Table) => {
    const writer = await CopyWriter.open(client, table, columns);
    for (const line of batch.ordered(source)) {
      const wait = writer.push(line);
      if (wait) await wait;
    }
    await writer.end();
  };
  // Rows that reference invoices and payments: in bulk mode (no FK triggers) alongside them,
  // otherwise once their parents are committed, parents first.
  const dependents = async () => {
    await Promise.all([
      load(connections[3], 'payment_applications', APPLICATION_COLUMNS, 'applications'),
      load(connections[0], 'credit_notes', CREDIT_NOTE_COLUMNS, 'credit_notes'),
      load(connections[1], 'invoice_write_offs', WRITE_OFF_COLUMNS, 'write_offs'),
    ]);
    await Promise.all([
      load(connections[2], 'credit_note_applications', CREDIT_APPLICATION_COLUMNS, 'credit_applications'),
      load(connections[3], 'refunds', REFUND_COLUMNS, 'refunds'),
    ]);
  };
  await Promise.all([
    load(connections[0], 'invoices', INVOICE_COLUMNS, 'invoices'),
    load(connections[1], 'payments', PAYMENT_COLUMNS, 'payments'),
    load(connections[2], 'ledger_entries', LEDGER_COLUMNS, 'ledger'),
    bulk ? load(connections[3], 'payment_applications', APPLICATION_COLUMNS, 'applications') : Promise.resolve(),
  ]);
  if (bulk) {
    await Promise.all([
      load(connections[0], 'credit_notes', CREDIT_NOTE_COLUMNS, 'credit_notes'),
      load(connections[1], 'invoice_write_offs', WRITE_OFF_COLUMNS, 'write_offs'),
      load(connections[2], 'credit_note_applications', CREDIT_APPLICATION_COLUMNS, 'credit_applications'),
      load(connections[3], 'refunds', REFUND_COLUMNS, 'refunds'),
    ]);
  } else {
    await dependents();
  }
}

/** Contiguous customer ranges of about `size` invoices each. */
function groups(invoiceCounts: number[], size: number): [number, number][] {
  const out: [number, number][] = [];
  let from = 0;
  let sum = 0;
  for (let c = 0; c < invoiceCounts.length; c++) {
    sum += invoiceCounts[c];
    if (sum >= size) {
      out.push([from, c + 1]);
      from = c + 1;
      sum = 0;
    }
  }
  if (from < invoiceCounts.length) out.push([from, invoiceCounts.length]);
  return out;
}

/** What the service keeps denormalised, computed from the loaded rows with its own formulas. */
async function finishTenant(client: Client, tenantId: string, invoiceCount: number, creditNoteCount: number, today: string): Promise<void> {
  // The customers' stored figures (ADR 17): what the triggers would have kept, recounted set-wise.
  await client.query('BEGIN');
  await client.query(RECOUNT_FIGURES_SQL);
  await client.query(recountBalanceAndOverdueSql('$1', '$2'), [tenantId, today]);
  await client.query(customerSummaryRefreshSql('$1'), [tenantId]);
  await client.query(recountReceivableTotalsSql('$1'), [tenantId]);
  await client.query('COMMIT');
  // The overdue scan (webhooks) notices each invoice once per due date it passes; a service
  // running through this history would have noticed every invoice overdue today already.
  const [{ notices }] = (await client.query(`SELECT to_regclass('invoice_overdue_notices') IS NOT NULL AS notices`)).rows;
  if (notices) {
    await client.query(
      `INSERT INTO invoice_overdue_notices (tenant_id, invoice_id, due_date)
       SELECT tenant_id, id, due_date FROM invoices
        WHERE tenant_id = $1 AND ${overdueInvoiceSql('$2', '')}
       ON CONFLICT DO NOTHING`,
      [tenantId, today],
    );
  }
  // The next generated number continues after the seeded ones.
  await client.query(
    `INSERT INTO invoice_number_counters (tenant_id, last_value) VALUES ($1, $2)
     ON CONFLICT (tenant_id) DO UPDATE SET last_value = GREATEST(invoice_number_counters.last_value, EXCLUDED.last_value)`,
    [tenantId, invoiceCount],
  );
  await client.query(
    `INSERT INTO credit_note_number_counters (tenant_id, last_value) VALUES ($1, $2)
     ON CONFLICT (tenant_id) DO UPDATE SET last_value = GREATEST(credit_note_number_counters.last_value, EXCLUDED.last_value)`,
    [tenantId, creditNoteCount],
  );
}

async function connect(url: string, bulk: boolean): Promise<Client> {
  const c = new Client({ connectionString: url, application_name: 'receivables-seed' });
  // Lost between two statements: said, and the next statement fails the seed (docs/adr/0055).
  c.on('error', (error) => process.stderr.write(`error: a seed connection to the database was lost: ${error.message}\n`));
  await c.connect();
  await c.query('SET synchronous_commit = off');
  // Invoices and payments are committed before their applications: their figures are checked set-wise afterwards.
  await c.query(bulk ? 'SET session_replication_role = replica' : LOADING_SQL);
  return c;
}

/**
 * Row-by-row foreign-key and balance triggers cost more than the data itself (each invoice
 * row locks its customer, each application sums its payment's and invoice's applications at
 * commit). When the role may, this session loads with `session_replication_role = replica`
 * (what pg_restore and logical replication use: triggers, including the FK checks, do not
 * fire for this session; CHECK and UNIQUE constraints still do) and `verifyReferences` then
 * checks the very same rules over the whole tenant in a few set-based queries. Without the
 * privilege the load simply runs with every trigger, slower.
 */
async function bulkMode(client: Client): Promise<boolean> {
  try {
    await client.query('SET session_replication_role = replica');
    return true;
  } catch {
    process.stderr.write('seed: cannot set session_replication_role (not a superuser): loading with row-by-row triggers, slower\n');
    await client.query(LOADING_SQL);
    return false;
  }
}

/** The session loads what the commit-time figure checks would refuse half-way (they skip it); verifyReferences checks it all. */
const LOADING_SQL = `SELECT set_config('receivables.recount', 'on', false)`;

/** The FK and application-balance rules the skipped triggers enforce, checked set-wise. */
async function verifyReferences(client: Client, tenantId: string, bulk: boolean): Promise<void> {
  await client.query(bulk ? 'SET session_replication_role = DEFAULT' : `SELECT set_config('receivables.recount', 'off', false)`);
  const checks: [string, string][] = [
    ['invoices without their customer', `SELECT count(*) AS n FROM invoices i WHERE i.tenant_id = $1 AND NOT EXISTS (SELECT 1 FROM customers c WHERE c.tenant_id = i.tenant_id AND c.id = i.customer_id)`],
    ['payments without their customer', `SELECT count(*) AS n FROM payments p WHERE p.tenant_id = $1 AND p.customer_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM customers c WHERE c.tenant_id = p.tenant_id AND c.id = p.customer_id)`],
    ['ledger entries without their customer', `SELECT count(*) AS n FROM ledger_entries l WHERE l.tenant_id = $1 AND NOT EXISTS (SELECT 1 FROM customers c WHERE c.tenant_id = l.tenant_id AND c.id = l.customer_id)`],
    ['applications without their payment or invoice', `SELECT count(*) AS n FROM payment_applications a WHERE a.tenant_id = $1 AND (NOT EXISTS (SELECT 1 FROM payments p WHERE p.tenant_id = a.tenant_id AND p.id = a.payment_id) OR NOT EXISTS (SELECT 1 FROM invoices i WHERE i.tenant_id = a.tenant_id AND i.id = a.invoice_id))`],
    ['payments whose amount_applied is not the sum of their applications', `SELECT count(*) AS n FROM payments p LEFT JOIN (SELECT payment_id, SUM(amount) AS s FROM payment_applications WHERE tenant_id = $1 AND reversed_at IS NULL GROUP BY payment_id) a ON a.payment_id = p.id WHERE p.tenant_id = $1 AND p.amount_applied <> COALESCE(a.s, 0)`],
    ['invoices whose amount_credited is not the sum of the credit applied to them', `SELECT count(*) AS n FROM invoices i LEFT JOIN (SELECT invoice_id, SUM(amount) AS s FROM credit_note_applications WHERE tenant_id = $1 GROUP BY invoice_id) a ON a.invoice_id = i.id WHERE i.tenant_id = $1 AND i.amount_credited <> COALESCE(a.s, 0)`],
    ['invoices whose amount_written_off is not the sum of their write-offs', `SELECT count(*) AS n FROM invoices i LEFT JOIN (SELECT invoice_id, SUM(amount) AS s FROM invoice_write_offs WHERE tenant_id = $1 GROUP BY invoice_id) w ON w.invoice_id = i.id WHERE i.tenant_id = $1 AND i.amount_written_off <> COALESCE(w.s, 0)`],
    ['credit notes whose amount_applied is not the sum of their applications', `SELECT count(*) AS n FROM credit_notes n LEFT JOIN (SELECT credit_note_id, SUM(amount) AS s FROM credit_note_applications WHERE tenant_id = $1 GROUP BY credit_note_id) a ON a.credit_note_id = n.id WHERE n.tenant_id = $1 AND n.amount_applied <> COALESCE(a.s, 0)`],
    ['payments and credit notes whose amount_refunded is not the sum of their refunds', `SELECT (SELECT count(*) FROM payments p LEFT JOIN (SELECT payment_id, SUM(amount) AS s FROM refunds WHERE tenant_id = $1 AND payment_id IS NOT NULL GROUP BY payment_id) f ON f.payment_id = p.id WHERE p.tenant_id = $1 AND p.amount_refunded <> COALESCE(f.s, 0))
           + (SELECT count(*) FROM credit_notes n LEFT JOIN (SELECT credit_note_id, SUM(amount) AS s FROM refunds WHERE tenant_id = $1 AND credit_note_id IS NOT NULL GROUP BY credit_note_id) f ON f.credit_note_id = n.id WHERE n.tenant_id = $1 AND n.amount_refunded <> COALESCE(f.s, 0)) AS n`],
    ['credit note applications and refunds without their owner or invoice', `SELECT (SELECT count(*) FROM credit_note_applications a WHERE a.tenant_id = $1 AND (NOT EXISTS (SELECT 1 FROM credit_notes n WHERE n.tenant_id = a.tenant_id AND n.id = a.credit_note_id) OR NOT EXISTS (SELECT 1 FROM invoices i WHERE i.tenant_id = a.tenant_id AND i.id = a.invoice_id)))
           + (SELECT count(*) FROM refunds f WHERE f.tenant_id = $1 AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.tenant_id = f.tenant_id AND p.id = f.payment_id) AND NOT EXISTS (SELECT 1 FROM credit_notes n WHERE n.tenant_id = f.tenant_id AND n.id = f.credit_note_id))
           + (SELECT count(*) FROM invoice_write_offs w WHERE w.tenant_id = $1 AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.tenant_id = w.tenant_id AND i.id = w.invoice_id)) AS n`],
    ['invoices whose amount_paid is not the sum of their applications', `SELECT count(*) AS n FROM invoices i LEFT JOIN (SELECT invoice_id, SUM(amount) AS s FROM payment_applications WHERE tenant_id = $1 AND reversed_at IS NULL GROUP BY invoice_id) a ON a.invoice_id = i.id WHERE i.tenant_id = $1 AND i.amount_paid <> COALESCE(a.s, 0)`],
  ];
  // One after the other: queries on one client run in turn anyway, and pg@8 deprecates queueing them.
  const failed: string[] = [];
  for (const [what, sql] of checks) {
    const { rows } = await client.query<{ n: string }>(sql, [tenantId]);
    if (rows[0].n !== '0') failed.push(`${rows[0].n} ${what}`);
  }
  if (failed.length > 0) throw new Error(`seeded data breaks the schema's rules: ${failed.join('; ')}`);
}

function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function customerLine(tenantId: string, c: CustomerRow): string {
  return copyRow([tenantId, c.id, c.name, c.email, c.externalId, c.phone, c.billingAddress, c.currency, c.paymentTermsDays, c.creditLimit, c.creditHold, c.metadata, c.version, c.createdAt, c.updatedAt]);
}

function invoiceLine(tenantId: string, i: InvoiceRow): string {
  const d = i.dispute;
  return copyRow([
    tenantId, i.id, i.number, i.customerId, i.status, i.currency, i.issueDate, i.dueDate, i.poNumber, i.memo, i.lineItems,
    i.subtotal, i.discountTotal, i.taxTotal, i.total, i.amountPaid,
    d?.status ?? null, d?.reason ?? null, d?.amount ?? null, d?.openedAt ?? null, d?.resolvedAt ?? null,
    i.metadata, i.finalizedAt, i.paidAt, i.paidOn, i.version, i.createdAt, i.updatedAt, i.amountCredited, i.amountWrittenOff,
  ]);
}

function creditNoteLine(tenantId: string, n: CreditNoteRow): string {
  return copyRow([tenantId, n.id, n.number, n.customerId, n.invoiceId, n.status, n.currency, n.amount, n.amountApplied, n.amountRefunded, n.reason, n.version, n.createdAt, n.updatedAt]);
}

function paymentLine(tenantId: string, p: PaymentRow): string {
  return copyRow([
    tenantId, p.id, p.customerId, p.amount, p.amountApplied, p.currency, p.paymentDate, p.method, p.reference, p.remittance,
    p.status, p.autoMatch, p.matchStatus, p.matchRule, [], p.metadata, p.version, p.createdAt, p.updatedAt, p.amountRefunded,
  ]);
}

function ledgerLine(tenantId: string, e: LedgerRow): string {
  const { reference, description } = ledgerText(e);
  return copyRow([tenantId, e.id, e.customerId, e.entryDate, e.type, e.sourceType, e.sourceId, reference, description, e.debit, e.credit, e.createdAt]);
}

/** The reference and description the service writes for each kind of entry. */
function ledgerText(e: LedgerRow): { reference: string | null; description: string } {
  if (e.text) return e.text;
  if (e.payment) return { reference: e.payment.reference ?? e.payment.id, description: `Payment received (${e.payment.method})` };
  const number = e.invoice!.number;
  switch (e.type) {
    case 'invoice':
      return { reference: number, description: `Invoice ${number}` };
    case 'void':
      return { reference: number, description: `Invoice ${number} voided` };
    case 'write_off':
      return { reference: number, description: `Invoice ${number} written off` };
    default:
      return { reference: number, description: `Invoice ${number}` };
  }
}

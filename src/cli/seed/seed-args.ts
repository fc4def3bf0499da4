/** Options of `npm run seed`: pure, so they can be unit-tested. */
export interface SeedOptions {
  invoices: number;
  customers: number;
  payments: number;
  tenants: number;
  /** invoices of each tenant's largest customer (the benchmark's "customer with 10,000 invoices") */
  largest: number;
  /** the day the data ends ("today"); three years of history lead up to it */
  asOf: string;
  /** PRNG seed: the same options give the same data */
  random: number;
  out?: string;
  json: boolean;
  help: boolean;
}

export const SEED_USAGE = `Usage: npm run seed -- [options]

  --invoices N     invoices to create (default 100000)
  --customers N    customers (default 1000)
  --payments N     payments (default 30% of the invoices)
  --tenants N      spread the data over N new tenants (default 1)
  --largest N      invoices of each tenant's largest customer (default 10000, at most a third)
  --as-of DATE     last day of the three years of history (default today)
  --random N       seed of the pseudo-random generator (default 1)
  --out FILE       also write the tenants' credentials and a summary to FILE (JSON)
  --json           print the summary as one JSON object

Database: DATABASE_URL when set, otherwise the embedded PostgreSQL in DATA_DIR (./.data).
New tenants are created; existing data is not touched.`;

export function parseSeedArgs(argv: string[]): SeedOptions {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help' || arg === '--json') {
      flags.add(arg === '--json' ? 'json' : 'help');
      continue;
    }
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new Error(`--${name} needs a value`);
    values.set(name, value);
  }
  const known = new Set(['invoices', 'customers', 'payments', 'tenants', 'largest', 'as-of', 'random', 'out']);
  for (const name of values.keys()) if (!known.has(name)) throw new Error(`unknown option --${name}`);
  const int = (name: string, fallback: number, min: number): number => {
    const raw = values.get(name);
    if (raw === undefined) return fallback;
    const n = Number(raw.replace(/_/g, ''));
    if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
    return n;
  };
  const invoices = int('invoices', 100_000, 0);
  const asOf = values.get('as-of') ?? new Date().toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf) || Number.isNaN(Date.parse(`${asOf}T00:00:00Z`))) throw new Error('--as-of must be YYYY-MM-DD');
  const opts: SeedOptions = {
    invoices,
    customers: int('customers', 1_000, 1),
    payments: int('payments', Math.round(invoices * 0.3), 0),
    tenants: int('tenants', 1, 1),
    largest: int('largest', 10_000, 0),
    asOf,
    random: int('random', 1, 0),
    out: values.get('out'),
    json: flags.has('json'),
    help: flags.has('help'),
  };
  if (opts.customers < opts.tenants) throw new Error('--customers must be at least --tenants');
  return opts;
}

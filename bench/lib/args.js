'use strict';
/** Command-line options of bench/run.js. */

const SIZES = {
  full: { invoices: 1_000_000, customers: 10_000, payments: 300_000, tenants: 1, largest: 10_000 },
  // The largest customer has 2,000 invoices here, so its detail answers within a one-second run.
  quick: { invoices: 30_000, customers: 300, payments: 9_000, tenants: 1, largest: 2_000 },
};
const TIMING = {
  full: { duration: 15, warmup: 3 },
  // under a minute from a fresh clone, build and seed included: a smoke run, not a measurement
  quick: { duration: 1, warmup: 0.3 },
};

const HELP = `usage: npm run bench [-- options]
  --quick               small seed, short runs (under a minute)
  --invoices N --customers N --payments N --tenants N   seed size
  --largest N           invoices of the largest customer (full 10,000, quick 2,000)
  --duration S          seconds per scenario and server (full 15, quick 1)
  --warmup S            warm-up seconds before each measurement (full 3, quick 0.3)
  --connections N       concurrent connections (50)
  --only a,b            run only these scenario ids
  --reseed              throw the bench database away and seed again
  --profile             run the service under node --cpu-prof and summarise the profile
  --no-write            do not update docs/benchmarks.md
  --data-dir DIR        where the bench database lives (bench/.results/db-<mode>)`;

function parseArgs(argv) {
  const flags = new Set();
  const values = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}\n${HELP}`);
    const [name, inline] = arg.slice(2).split('=', 2);
    if (['quick', 'reseed', 'profile', 'no-write', 'help'].includes(name)) {
      flags.add(name);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${name} needs a value\n${HELP}`);
    values[name] = value;
  }
  if (flags.has('help')) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const mode = flags.has('quick') ? 'quick' : 'full';
  const num = (name, fallback) => {
    if (values[name] === undefined) return fallback;
    const n = Number(values[name]);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number`);
    return n;
  };
  const size = SIZES[mode];
  const seed = {
    invoices: num('invoices', size.invoices),
    customers: num('customers', size.customers),
    payments: num('payments', size.payments),
    tenants: num('tenants', size.tenants),
    largest: num('largest', size.largest),
  };
  const custom = Object.keys(seed).some((k) => seed[k] !== size[k]);
  return {
    mode,
    seed,
    customSeed: custom,
    duration: num('duration', TIMING[mode].duration),
    warmup: num('warmup', TIMING[mode].warmup),
    connections: num('connections', 50),
    only: values.only ? values.only.split(',').map((s) => s.trim()) : null,
    reseed: flags.has('reseed'),
    profile: flags.has('profile'),
    write: !flags.has('no-write'),
    dataDir: values['data-dir'] ?? null,
  };
}

/** `--name N` options of the single-purpose bench scripts: `defaults` names them and gives their values. */
function numberOptions(defaults, argv = process.argv.slice(2)) {
  const out = { ...defaults };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in out)) throw new Error(`unknown option ${argv[i]}`);
    out[key] = Number(argv[i + 1]);
  }
  return out;
}

module.exports = { parseArgs, numberOptions, HELP };

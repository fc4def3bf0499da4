/** Command-line parsing for the provisioning CLI: pure, so it is unit-tested without a database. */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'migrate' }
  | { kind: 'tenant-create'; name: string; scopes?: string; rateLimit?: number; json: boolean }
  | { kind: 'client-create'; tenantId: string; name?: string; scopes?: string; rateLimit?: number; json: boolean }
  | { kind: 'client-revoke'; clientId: string; json: boolean }
  | { kind: 'settings-show'; tenantId: string; json: boolean }
  | { kind: 'settings-set'; tenantId: string; changes: SettingsChanges; json: boolean };

/** The settings a `settings set` names, field by field (the rest of each section stays as it is). */
export interface SettingsChanges {
  timezone?: string;
  shortPayAmount?: number;
  shortPayPercent?: number;
  payerNameMatching?: boolean;
  remindersEnabled?: boolean;
  reminderDays?: number[];
}

/** A mistake in how the CLI was called (exit code 2), as opposed to a failed command (1). */
export class UsageError extends Error {}

export const USAGE = `Usage: npm run -s cli -- <command> [options]   (-s: no npm banner before the output)

Commands:
  migrate                                  apply pending database migrations
  tenant create --name <name>              create a tenant and its first API client
                [--scopes "<s> ..."] [--rate-limit <n>] [--json]
  client create --tenant <tenant_id>       create another API client for a tenant
                [--name <name>] [--scopes "<s> ..."] [--rate-limit <n>] [--json]
  client revoke <client_id> [--json]       revoke a client; its tokens stop working
  settings show --tenant <tenant_id>       print a tenant's settings
                [--json]
  settings set --tenant <tenant_id>        change a tenant's settings (what is not named stays)
                [--timezone <IANA name>] [--short-pay-amount <minor units>]
                [--short-pay-percent <percent>] [--payer-name-matching true|false]
                [--reminders true|false] [--reminder-days "-3,1,7,14,30"] [--json]

Options:
  --scopes       space- or comma-separated subset of the scopes (default: all)
  --rate-limit   requests per window for this client (default: RATE_LIMIT_REQUESTS)
  --json         print the result as one JSON object (with npm run -s, stdout is only that)
  -h, --help     show this help

Database: DATABASE_URL when set, otherwise the embedded PostgreSQL in DATA_DIR (./.data),
shared with a running server.
Exit codes: 0 success, 1 the command failed, 2 usage error.`;

const FLAGS = new Set(['json', 'help']);

interface Parsed {
  positional: string[];
  options: Map<string, string>;
  flags: Set<string>;
}

function tokenize(argv: string[]): Parsed {
  const parsed: Parsed = { positional: [], options: new Map(), flags: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h') {
      parsed.flags.add('help');
      continue;
    }
    if (!arg.startsWith('--')) {
      parsed.positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (FLAGS.has(name)) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      parsed.flags.add(name);
      continue;
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || (eq === -1 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    if (parsed.options.has(name)) throw new UsageError(`--${name} given twice`);
    parsed.options.set(name, value);
  }
  return parsed;
}

function take(parsed: Parsed, allowed: string[]): Record<string, string | undefined> {
  const unknown = [...parsed.options.keys()].filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw new UsageError(`unknown option --${unknown[0]}`);
  return Object.fromEntries(allowed.map((k) => [k, parsed.options.get(k)]));
}

function rateLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError('--rate-limit must be a positive integer');
  }
  return Number(value);
}

function bool(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new UsageError(`--${name} must be true or false`);
  return value === 'true';
}

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`--${name} must be an integer`);
  return Number(value);
}

function settingsChanges(o: Record<string, string | undefined>): SettingsChanges {
  const percent = o['short-pay-percent'];
  if (percent !== undefined && !/^\d+(\.\d+)?$/.test(percent)) throw new UsageError('--short-pay-percent must be a number such as 1.5');
  const days = o['reminder-days'];
  const changes: SettingsChanges = {
    timezone: o.timezone,
    shortPayAmount: integer('short-pay-amount', o['short-pay-amount']),
    shortPayPercent: percent === undefined ? undefined : Number(percent),
    payerNameMatching: bool('payer-name-matching', o['payer-name-matching']),
    remindersEnabled: bool('reminders', o.reminders),
    reminderDays: days === undefined ? undefined : days.trim() === '' ? [] : days.split(',').map((d) => integer('reminder-days', d)!),
  };
  const named = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as SettingsChanges;
  if (Object.keys(named).length === 0) throw new UsageError('settings set needs at least one setting to change');
  return named;
}

function noMorePositionals(parsed: Parsed, count: number): void {
  if (parsed.positional.length > count) throw new UsageError(`unexpected argument "${parsed.positional[count]}"`);
}

export function parseArgs(argv: string[]): CliCommand {
  const parsed = tokenize(argv);
  if (parsed.flags.has('help') || parsed.positional[0] === 'help') return { kind: 'help' };
  const json = parsed.flags.has('json');
  const [group, action] = parsed.positional;
  switch (`${group ?? ''} ${action ?? ''}`.trim()) {
    case '':
      throw new UsageError('no command given');
    case 'migrate':
      take(parsed, []);
      return { kind: 'migrate' };
    case 'tenant create': {
      noMorePositionals(parsed, 2);
      const o = take(parsed, ['name', 'scopes', 'rate-limit']);
      if (!o.name?.trim()) throw new UsageError('tenant create needs --name');
      return { kind: 'tenant-create', name: o.name, scopes: o.scopes, rateLimit: rateLimit(o['rate-limit']), json };
    }
    case 'client create': {
      noMorePositionals(parsed, 2);
      const o = take(parsed, ['tenant', 'name', 'scopes', 'rate-limit']);
      if (!o.tenant) throw new UsageError('client create needs --tenant <tenant_id>');
      return { kind: 'client-create', tenantId: o.tenant, name: o.name, scopes: o.scopes, rateLimit: rateLimit(o['rate-limit']), json };
    }
    case 'client revoke': {
      take(parsed, []);
      const clientId = parsed.positional[2];
      if (!clientId) throw new UsageError('client revoke needs a <client_id>');
      noMorePositionals(parsed, 3);
      return { kind: 'client-revoke', clientId, json };
    }
    case 'settings show': {
      noMorePositionals(parsed, 2);
      const o = take(parsed, ['tenant']);
      if (!o.tenant) throw new UsageError('settings show needs --tenant <tenant_id>');
      return { kind: 'settings-show', tenantId: o.tenant, json };
    }
    case 'settings set': {
      noMorePositionals(parsed, 2);
      const o = take(parsed, ['tenant', 'timezone', 'short-pay-amount', 'short-pay-percent', 'payer-name-matching', 'reminders', 'reminder-days']);
      if (!o.tenant) throw new UsageError('settings set needs --tenant <tenant_id>');
      return { kind: 'settings-set', tenantId: o.tenant, changes: settingsChanges(o), json };
    }
    default:
      throw new UsageError(`unknown command "${parsed.positional.join(' ')}"`);
  }
}

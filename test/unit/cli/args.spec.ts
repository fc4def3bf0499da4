import { parseArgs, UsageError } from '../../../src/cli/args';

describe('CLI arguments', () => {
  it.each<[string[], unknown]>([
    [['--help'], { kind: 'help' }],
    [['-h'], { kind: 'help' }],
    [['help'], { kind: 'help' }],
    [['tenant', 'create', '--help'], { kind: 'help' }],
    [['migrate'], { kind: 'migrate' }],
    [['tenant', 'create', '--name', 'Acme'], { kind: 'tenant-create', name: 'Acme', json: false }],
    [
      ['tenant', 'create', '--name=Acme Inc', '--scopes', 'invoices:read payments:read', '--rate-limit', '50', '--json'],
      { kind: 'tenant-create', name: 'Acme Inc', scopes: 'invoices:read payments:read', rateLimit: 50, json: true },
    ],
    [
      ['client', 'create', '--json', '--tenant', 'ten_1', '--scopes=invoices:read', '--name', 'ERP'],
      { kind: 'client-create', tenantId: 'ten_1', name: 'ERP', scopes: 'invoices:read', json: true },
    ],
    [['client', 'revoke', 'cli_1'], { kind: 'client-revoke', clientId: 'cli_1', json: false }],
    [['client', 'revoke', '--json', 'cli_1'], { kind: 'client-revoke', clientId: 'cli_1', json: true }],
    [['settings', 'show', '--tenant', 'ten_1'], { kind: 'settings-show', tenantId: 'ten_1', json: false }],
    [
      ['settings', 'set', '--tenant', 'ten_1', '--timezone', 'America/Los_Angeles', '--json'],
      { kind: 'settings-set', tenantId: 'ten_1', changes: { timezone: 'America/Los_Angeles' }, json: true },
    ],
    [
      ['settings', 'set', '--tenant=ten_1', '--short-pay-amount', '500', '--short-pay-percent', '1.5', '--payer-name-matching', 'false'],
      { kind: 'settings-set', tenantId: 'ten_1', changes: { shortPayAmount: 500, shortPayPercent: 1.5, payerNameMatching: false }, json: false },
    ],
    [
      ['settings', 'set', '--tenant', 'ten_1', '--reminders', 'true', '--reminder-days', '-3,1,7'],
      { kind: 'settings-set', tenantId: 'ten_1', changes: { remindersEnabled: true, reminderDays: [-3, 1, 7] }, json: false },
    ],
    [['settings', 'set', '--tenant', 'ten_1', '--reminder-days='], { kind: 'settings-set', tenantId: 'ten_1', changes: { reminderDays: [] }, json: false }],
  ])('%p', (argv, expected) => {
    expect(parseArgs(argv)).toEqual(expected);
  });

  it.each<[string[], RegExp]>([
    [[], /no command/],
    [['tenant'], /unknown command "tenant"/],
    [['tenant', 'delete'], /unknown command/],
    [['tenant', 'create'], /--name/],
    [['tenant', 'create', '--name'], /--name needs a value/],
    [['tenant', 'create', '--name', '--json'], /--name needs a value/],
    [['tenant', 'create', '--name', '  '], /--name/],
    [['tenant', 'create', '--name', 'A', '--tenant', 'x'], /unknown option --tenant/],
    [['tenant', 'create', '--name', 'A', '--name', 'B'], /twice/],
    [['tenant', 'create', '--name', 'A', 'extra'], /unexpected argument "extra"/],
    [['client', 'create'], /--tenant/],
    [['client', 'create', '--tenant', 'ten_1', '--rate-limit', '0'], /positive integer/],
    [['client', 'create', '--tenant', 'ten_1', '--rate-limit', '1.5'], /positive integer/],
    [['client', 'create', '--tenant', 'ten_1', '--rate-limit', 'ten'], /positive integer/],
    [['client', 'revoke'], /client_id/],
    [['client', 'revoke', 'cli_1', 'cli_2'], /unexpected argument "cli_2"/],
    [['migrate', '--force', 'yes'], /unknown option --force/],
    [['migrate', '--json=1'], /takes no value/],
    [['settings', 'show'], /--tenant/],
    [['settings', 'set', '--tenant', 'ten_1'], /at least one setting/],
    [['settings', 'set', '--timezone', 'UTC'], /--tenant/],
    [['settings', 'set', '--tenant', 'ten_1', '--reminders', 'yes'], /true or false/],
    [['settings', 'set', '--tenant', 'ten_1', '--short-pay-amount', '5.5'], /integer/],
    [['settings', 'set', '--tenant', 'ten_1', '--short-pay-percent', '1e3'], /number/],
    [['settings', 'set', '--tenant', 'ten_1', '--reminder-days', '1,x'], /integer/],
    [['settings', 'set', '--tenant', 'ten_1', '--language', 'fr'], /unknown option --language/],
  ])('%p is a usage error %p', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    expect(() => parseArgs(argv)).toThrow(message);
  });
});

import { ALL_SCOPES } from '../../../src/modules/auth';
import { isScope, parseScopes } from '../../../src/modules/auth/domain/scopes';
import { ValidationError } from '../../../src/shared/domain/domain-error';

describe('scopes', () => {
  it('lists exactly the ten scopes of the contract', () => {
    expect([...ALL_SCOPES].sort()).toEqual(
      [
        'customers:read',
        'customers:write',
        'invoices:read',
        'invoices:write',
        'payments:read',
        'payments:write',
        'webhooks:read',
        'webhooks:write',
        'settings:read',
        'settings:write',
      ].sort(),
    );
  });

  it.each([undefined, null, '', '   '])('gives all scopes when none are asked for (%p)', (value) => {
    expect(parseScopes(value)).toEqual([...ALL_SCOPES]);
  });

  it('reads space- or comma-separated lists and drops duplicates', () => {
    expect(parseScopes('invoices:read  payments:write,invoices:read')).toEqual(['invoices:read', 'payments:write']);
  });

  it('refuses unknown scopes on the scopes field', () => {
    expect(() => parseScopes('invoices:read invoices:admin')).toThrow(ValidationError);
    try {
      parseScopes('INVOICES:READ');
    } catch (e) {
      expect((e as ValidationError).errors?.[0].field).toBe('scopes');
      return;
    }
    throw new Error('scopes are case-sensitive');
  });

  it('isScope', () => {
    expect(isScope('webhooks:write')).toBe(true);
    expect(isScope('webhooks')).toBe(false);
  });
});

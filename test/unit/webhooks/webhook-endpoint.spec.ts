import { Webhook } from 'standardwebhooks';
import { signingSecrets, WebhookEndpoint } from '../../../src/modules/webhooks/domain/webhook-endpoint.aggregate';
import { envelopeBody, webhookHeaders } from '../../../src/modules/webhooks/infrastructure/webhook-signer';
import { ValidationError } from '../../../src/shared/domain/domain-error';

const T0 = new Date('2026-03-01T12:00:00Z');
const later = (s: number) => new Date(T0.getTime() + s * 1000);

function endpoint(): WebhookEndpoint {
  return WebhookEndpoint.create({ id: 'wh_x', tenantId: 'ten_x', url: 'https://example.com/h', events: ['*'], now: T0 });
}

describe('WebhookEndpoint', () => {
  it('is created enabled with a fresh 32-byte whsec_ secret', () => {
    const a = endpoint();
    const b = endpoint();
    expect(a.status).toBe('enabled');
    expect(a.secret).toMatch(/^whsec_/);
    expect(Buffer.from(a.secret.slice(6), 'base64')).toHaveLength(32);
    expect(a.secret).not.toBe(b.secret);
  });

  it('validates its event filters', () => {
    expect(() => WebhookEndpoint.create({ id: 'wh_x', tenantId: 't', url: 'u', events: ['invoice.sent'], now: T0 })).toThrow(ValidationError);
    const e = endpoint();
    expect(() => e.update({ events: [] }, T0)).toThrow(ValidationError);
  });

  it('records why it was disabled and clears it when enabled again', () => {
    const e = endpoint();
    e.update({ status: 'disabled' }, T0);
    expect(e.snapshot()).toMatchObject({ status: 'disabled', disabledReason: 'manual' });
    e.update({ status: 'enabled' }, T0);
    expect(e.snapshot()).toMatchObject({ status: 'enabled', disabledReason: null });
  });

  it('signs with both secrets during the rotation overlap, then with the new one only', () => {
    const e = endpoint();
    const old = e.secret;
    e.rotateSecret(T0, 3600);
    const s = e.snapshot();
    expect(s.secret).not.toBe(old);
    expect(signingSecrets(s, later(10))).toEqual([s.secret, old]);
    expect(signingSecrets(s, later(3600))).toEqual([s.secret]);
  });

  it('retires the old secret at once with overlap 0, and refuses overlaps outside 0..7 days', () => {
    const e = endpoint();
    e.rotateSecret(T0, 0);
    expect(signingSecrets(e.snapshot(), T0)).toEqual([e.secret]);
    expect(() => e.rotateSecret(T0, -1)).toThrow(ValidationError);
    expect(() => e.rotateSecret(T0, 7 * 86_400 + 1)).toThrow(ValidationError);
    expect(() => e.rotateSecret(T0, 1.5)).toThrow(ValidationError);
  });
});

describe('webhook signing', () => {
  it('produces headers the standardwebhooks library verifies, one v1 signature per secret', () => {
    const a = endpoint().secret;
    const b = endpoint().secret;
    const now = new Date();
    const body = envelopeBody({ id: 'evt_1', type: 'invoice.paid', createdAt: T0, data: { object: { id: 'inv_1', amount_due: 0 } } });
    const headers = webhookHeaders('evt_1', now, body, [a, b]);
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(a).verify(body, headers)).toEqual({
      id: 'evt_1',
      type: 'invoice.paid',
      created_at: '2026-03-01T12:00:00.000Z',
      data: { object: { id: 'inv_1', amount_due: 0 } },
    });
    expect(() => new Webhook(b).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(endpoint().secret).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify(body.replace('inv_1', 'inv_2'), headers)).toThrow();
  });
});

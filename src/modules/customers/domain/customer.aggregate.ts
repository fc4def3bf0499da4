import { AggregateRoot } from '../../../shared/domain/aggregate-root';
import { InvalidStateError, ValidationError } from '../../../shared/domain/domain-error';
import { newId } from '../../../shared/domain/ids';
import { normalizeCurrency } from '../../../shared/domain/money';

export interface BillingAddress {
  line1: string | null;
  line2: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  country: string | null;
}

export interface CustomerSnapshot {
  tenantId: string;
  id: string;
  name: string;
  email: string | null;
  externalId: string | null;
  phone: string | null;
  billingAddress: BillingAddress | null;
  currency: string;
  paymentTermsDays: number;
  creditLimit: number | null;
  creditHold: boolean;
  metadata: Record<string, unknown>;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Customer attributes as a client sends them (public names; undefined = not sent). */
export interface CustomerInput {
  name?: string;
  email?: string | null;
  external_id?: string | null;
  phone?: string | null;
  billing_address?: Partial<BillingAddress> | null;
  currency?: string;
  payment_terms_days?: number;
  credit_limit?: number | null;
  credit_hold?: boolean;
  metadata?: Record<string, unknown> | null;
}

export const DEFAULT_PAYMENT_TERMS_DAYS = 30;
const MAX_TERMS = 365;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ADDRESS_FIELDS = ['line1', 'line2', 'city', 'region', 'postal_code', 'country'] as const;

function text(field: string, value: unknown, max: number): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw ValidationError.field(field, `${field} must be a string`);
  const trimmed = value.trim();
  if (trimmed.length > max) throw ValidationError.field(field, `${field} must be at most ${max} characters`);
  return trimmed === '' ? null : trimmed;
}

function name(value: unknown): string {
  const n = text('name', value, 200);
  if (!n) throw ValidationError.field('name', 'name is required', 'required');
  return n;
}

function email(value: unknown): string | null {
  const e = text('email', value, 254);
  if (e !== null && !EMAIL_RE.test(e)) throw ValidationError.field('email', 'email must be an email address');
  return e;
}

function terms(value: unknown): number {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > MAX_TERMS) {
    throw ValidationError.field('payment_terms_days', `payment_terms_days must be an integer from 0 to ${MAX_TERMS}`);
  }
  return value as number;
}

function creditLimit(value: unknown): number | null {
  if (value === null) return null;
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw ValidationError.field('credit_limit', 'credit_limit must be null or a non-negative integer in minor units');
  }
  return value as number;
}

function address(value: unknown): BillingAddress | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw ValidationError.field('billing_address', 'billing_address must be an object');
  const v = value as Record<string, unknown>;
  const result = Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, text(`billing_address.${f}`, v[f], 200)])) as unknown as BillingAddress;
  if (result.country !== null) {
    if (!/^[A-Za-z]{2}$/.test(result.country)) {
      throw ValidationError.field('billing_address.country', 'billing_address.country must be an ISO 3166-1 alpha-2 code');
    }
    result.country = result.country.toUpperCase();
  }
  return ADDRESS_FIELDS.every((f) => result[f] === null) ? null : result;
}

/**
 * A customer (contract §6): who is billed, in which one currency, on what terms and within
 * what credit. Balances and aging are not held here: they come from the ledger and invoices.
 * Records no public events (the contract lists none for customers).
 */
export class Customer extends AggregateRoot {
  private persistedVersion: number;

  private constructor(private s: CustomerSnapshot, persistedVersion: number) {
    super();
    this.version = s.version;
    this.persistedVersion = persistedVersion;
  }

  static create(tenantId: string, input: CustomerInput, now: Date): Customer {
    if (input.currency === undefined || input.currency === null) {
      throw ValidationError.field('currency', 'currency is required', 'required');
    }
    return new Customer(
      {
        tenantId,
        id: newId('cus'),
        name: name(input.name),
        email: email(input.email),
        externalId: text('external_id', input.external_id, 255),
        phone: text('phone', input.phone, 50),
        billingAddress: address(input.billing_address),
        currency: normalizeCurrency(input.currency),
        paymentTermsDays: input.payment_terms_days === undefined ? DEFAULT_PAYMENT_TERMS_DAYS : terms(input.payment_terms_days),
        creditLimit: input.credit_limit === undefined ? null : creditLimit(input.credit_limit),
        creditHold: input.credit_hold === undefined ? false : Customer.bool('credit_hold', input.credit_hold),
        metadata: { ...(input.metadata ?? {}) },
        version: 1,
        createdAt: now,
        updatedAt: now,
      },
      0,
    );
  }

  static restore(snapshot: CustomerSnapshot): Customer {
    return new Customer({ ...snapshot }, snapshot.version);
  }

  /**
   * `canChangeCurrency` is false once the customer has invoices or ledger entries: their
   * amounts are in the old currency (a customer has one currency).
   */
  update(input: CustomerInput, now: Date, canChangeCurrency: boolean): void {
    const next: CustomerSnapshot = { ...this.s };
    if (input.name !== undefined) next.name = name(input.name);
    if (input.email !== undefined) next.email = email(input.email);
    if (input.external_id !== undefined) next.externalId = text('external_id', input.external_id, 255);
    if (input.phone !== undefined) next.phone = text('phone', input.phone, 50);
    if (input.billing_address !== undefined) next.billingAddress = address(input.billing_address);
    if (input.currency !== undefined) {
      next.currency = normalizeCurrency(input.currency as string);
      if (next.currency !== this.s.currency && !canChangeCurrency) {
        throw new InvalidStateError('The currency of a customer with invoices or payments cannot change.');
      }
    }
    if (input.payment_terms_days !== undefined) next.paymentTermsDays = terms(input.payment_terms_days);
    if (input.credit_limit !== undefined) next.creditLimit = creditLimit(input.credit_limit);
    if (input.credit_hold !== undefined) next.creditHold = Customer.bool('credit_hold', input.credit_hold);
    if (input.metadata !== undefined) next.metadata = { ...(input.metadata ?? {}) };
    const { version: _v, updatedAt: _u, ...comparable } = next;
    const { version: _v0, updatedAt: _u0, ...current } = this.s;
    if (JSON.stringify(comparable) === JSON.stringify(current)) return;
    this.s = next;
    this.s.version = this.persistedVersion + 1;
    this.s.updatedAt = now;
    this.version = this.s.version;
  }

  get id(): string { return this.s.id; }
  get tenantId(): string { return this.s.tenantId; }
  get name(): string { return this.s.name; }
  get email(): string | null { return this.s.email; }
  get externalId(): string | null { return this.s.externalId; }
  get currency(): string { return this.s.currency; }
  get paymentTermsDays(): number { return this.s.paymentTermsDays; }
  get creditLimit(): number | null { return this.s.creditLimit; }
  get creditHold(): boolean { return this.s.creditHold; }
  get isNew(): boolean { return this.persistedVersion === 0; }
  get isChanged(): boolean { return this.s.version !== this.persistedVersion; }
  get expectedVersion(): number { return this.persistedVersion; }

  markPersisted(): void {
    this.persistedVersion = this.s.version;
  }

  toSnapshot(): CustomerSnapshot {
    return { ...this.s, billingAddress: this.s.billingAddress ? { ...this.s.billingAddress } : null, metadata: { ...this.s.metadata } };
  }

  private static bool(field: string, value: unknown): boolean {
    if (typeof value !== 'boolean') throw ValidationError.field(field, `${field} must be true or false`);
    return value;
  }
}

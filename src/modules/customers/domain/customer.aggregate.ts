import { AggregateRoot } from '../../../shared/domain/aggregate-root';
import { InvalidStateError, ValidationError } from '../../../shared/domain/domain-error';
import { newId } from '../../../shared/domain/ids';
import { normalizeCurrency } from '../../../shared/domain/money';
import { MAX_PAYER_TEXT, normalizePayerAccount, normalizePayerName } from '../../../shared/domain/payer';

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
  /** names the customer pays under besides its own (§14), as given */
  aliases: string[];
  /** IBANs / account numbers the customer pays from, normalised */
  payerAccounts: string[];
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
  aliases?: string[] | null;
  payer_accounts?: string[] | null;
}

/** What identifies a payer as this customer (§14): normalised names (its own and aliases) and accounts. */
export interface PayerKeys {
  names: string[];
  accounts: string[];
}

export const DEFAULT_PAYMENT_TERMS_DAYS = 30;
/** Enough for every name and account a customer really pays under; learning stops adding at the bound. */
export const MAX_PAYER_IDENTIFIERS = 50;
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

function aliases(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_PAYER_IDENTIFIERS) {
    throw ValidationError.field('aliases', `aliases must be an array of at most ${MAX_PAYER_IDENTIFIERS} names`);
  }
  const kept = new Map<string, string>();
  value.forEach((alias, i) => {
    const field = `aliases[${i}]`;
    const name = text(field, alias, MAX_PAYER_TEXT);
    const key = normalizePayerName(name);
    if (name === null || key === null) throw ValidationError.field(field, `${field} must be a name with at least one letter or digit`);
    if (!kept.has(key)) kept.set(key, name);
  });
  return [...kept.values()];
}

function payerAccounts(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_PAYER_IDENTIFIERS) {
    throw ValidationError.field('payer_accounts', `payer_accounts must be an array of at most ${MAX_PAYER_IDENTIFIERS} account numbers`);
  }
  const accounts = value.map((account, i) => {
    const field = `payer_accounts[${i}]`;
    const normalized = normalizePayerAccount(text(field, account, 64));
    if (normalized === null) throw ValidationError.field(field, `${field} must be an IBAN or account number`);
    return normalized;
  });
  return [...new Set(accounts)];
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
        aliases: aliases(input.aliases),
        payerAccounts: payerAccounts(input.payer_accounts),
        version: 1,
        createdAt: now,
        updatedAt: now,
      },
      0,
    );
  }

  static restore(snapshot: CustomerSnapshot): Customer {
    return new Customer({ ...snapshot, aliases: [...snapshot.aliases], payerAccounts: [...snapshot.payerAccounts] }, snapshot.version);
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
    if (input.aliases !== undefined) next.aliases = aliases(input.aliases);
    if (input.payer_accounts !== undefined) next.payerAccounts = payerAccounts(input.payer_accounts);
    this.change(next, now);
  }

  /**
   * Learning (§14): a person matched a payment of this payer to this customer's invoices, so the
   * payer's account is linked to the customer and the payer's name becomes an alias (unless the
   * name already identifies the customer). At MAX_PAYER_IDENTIFIERS nothing more is learnt.
   */
  learnPayer(payer: { name: string | null; account: string | null }, now: Date): void {
    const next: CustomerSnapshot = { ...this.s };
    const account = normalizePayerAccount(payer.account);
    if (account && !next.payerAccounts.includes(account) && next.payerAccounts.length < MAX_PAYER_IDENTIFIERS) {
      next.payerAccounts = [...next.payerAccounts, account];
    }
    const name = payer.name?.trim().slice(0, MAX_PAYER_TEXT) || null;
    const key = normalizePayerName(name);
    if (name && key && !this.payerKeys().names.includes(key) && next.aliases.length < MAX_PAYER_IDENTIFIERS) {
      next.aliases = [...next.aliases, name];
    }
    this.change(next, now);
  }

  /** The normalised names and accounts that identify this customer as a payer. */
  payerKeys(): PayerKeys {
    const names = [this.s.name, ...this.s.aliases].map(normalizePayerName).filter((k): k is string => k !== null);
    return { names: [...new Set(names)], accounts: [...this.s.payerAccounts] };
  }

  private change(next: CustomerSnapshot, now: Date): void {
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
  get aliases(): readonly string[] { return this.s.aliases; }
  get payerAccounts(): readonly string[] { return this.s.payerAccounts; }
  get isNew(): boolean { return this.persistedVersion === 0; }
  get isChanged(): boolean { return this.s.version !== this.persistedVersion; }
  get expectedVersion(): number { return this.persistedVersion; }

  markPersisted(): void {
    this.persistedVersion = this.s.version;
  }

  toSnapshot(): CustomerSnapshot {
    return {
      ...this.s,
      billingAddress: this.s.billingAddress ? { ...this.s.billingAddress } : null,
      metadata: { ...this.s.metadata },
      aliases: [...this.s.aliases],
      payerAccounts: [...this.s.payerAccounts],
    };
  }

  private static bool(field: string, value: unknown): boolean {
    if (typeof value !== 'boolean') throw ValidationError.field(field, `${field} must be true or false`);
    return value;
  }
}

import { DECIMAL_SCALE, parseScaled, scaledToNumber } from '../../../shared/domain/decimal';
import { ValidationError } from '../../../shared/domain/domain-error';
import { parseTimeZone } from './time-zone';

/** Contract §1: no single amount a client sends exceeds 10^12 minor units. */
export const MAX_TOLERANCE_AMOUNT = 1_000_000_000_000;
export const MAX_REMINDER_DAYS = 20;
export const REMINDER_DAY_RANGE = 365;

export interface CashApplicationSettings {
  short_pay_tolerance: { amount: number; percent: number };
  payer_name_matching: boolean;
}

export interface ReminderSettings {
  enabled: boolean;
  /** days relative to the due date (negative = before it), ascending, no duplicates */
  days: number[];
}

/** The public representation (contract §13). */
export interface TenantSettingsJson {
  timezone: string;
  cash_application: CashApplicationSettings;
  reminders: ReminderSettings;
}

/** A PATCH: each section named replaces the stored one as a whole (undefined = keep). */
export interface TenantSettingsPatch {
  timezone?: unknown;
  cash_application?: unknown;
  reminders?: unknown;
}

/** What the database row holds; the percent as a scaled integer (units of 1/10^4 percent). */
export interface TenantSettingsState {
  timezone: string;
  shortPayAmount: number;
  shortPayPercentScaled: bigint;
  payerNameMatching: boolean;
  remindersEnabled: boolean;
  reminderDays: number[];
}

const DEFAULTS: TenantSettingsState = {
  timezone: 'UTC',
  shortPayAmount: 0,
  shortPayPercentScaled: 0n,
  payerNameMatching: true,
  remindersEnabled: false,
  reminderDays: [-3, 1, 7, 14, 30],
};

const SECTIONS = ['timezone', 'cash_application', 'reminders'] as const;

function object(field: string, value: unknown, keys: readonly string[]): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw ValidationError.field(field, `${field} must be an object`);
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((k) => !keys.includes(k));
  if (unknown.length > 0) throw ValidationError.field(`${field}.${unknown[0]}`, `${field}.${unknown[0]} is not a known field`, 'unknown');
  // A section is replaced as a whole, so it is given whole: nothing is reset to a default by omission.
  const missing = keys.filter((k) => record[k] === undefined);
  if (missing.length > 0) {
    throw ValidationError.field(`${field}.${missing[0]}`, `${field}.${missing[0]} is required: a section is replaced as a whole`, 'required');
  }
  return record;
}

function boolean(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw ValidationError.field(field, `${field} must be true or false`);
  return value;
}

/**
 * A tenant's settings (contract §13): its time zone, how cash application treats short pays and
 * payer names, and its reminder days. Immutable; `patch` returns the new settings after checking
 * every value, so a refused PATCH changes nothing.
 */
export class TenantSettings {
  private constructor(private readonly s: TenantSettingsState) {}

  static defaults(): TenantSettings {
    return new TenantSettings({ ...DEFAULTS, reminderDays: [...DEFAULTS.reminderDays] });
  }

  static restore(state: TenantSettingsState): TenantSettings {
    return new TenantSettings({ ...state, reminderDays: [...state.reminderDays] });
  }

  get timezone(): string {
    return this.s.timezone;
  }

  get payerNameMatching(): boolean {
    return this.s.payerNameMatching;
  }

  get reminders(): ReminderSettings {
    return { enabled: this.s.remindersEnabled, days: [...this.s.reminderDays] };
  }

  toState(): TenantSettingsState {
    return { ...this.s, reminderDays: [...this.s.reminderDays] };
  }

  toJSON(): TenantSettingsJson {
    return {
      timezone: this.s.timezone,
      cash_application: {
        short_pay_tolerance: { amount: this.s.shortPayAmount, percent: scaledToNumber(this.s.shortPayPercentScaled) },
        payer_name_matching: this.s.payerNameMatching,
      },
      reminders: this.reminders,
    };
  }

  /**
   * How far short of `amountDue` (minor units) a payment may be and still settle it (§13):
   * `min(amount, floor(percent × amountDue / 100))`, 0 unless both are above 0. Exact: the
   * percent is a scaled integer and the product is computed with BigInt.
   */
  shortPayTolerance(amountDue: number): number {
    if (this.s.shortPayAmount <= 0 || this.s.shortPayPercentScaled <= 0n || amountDue <= 0) return 0;
    const byPercent = (this.s.shortPayPercentScaled * BigInt(amountDue)) / (100n * DECIMAL_SCALE);
    return Math.min(this.s.shortPayAmount, Number(byPercent));
  }

  /** The settings after a PATCH: every named section replaced as a whole, every value checked. */
  patch(input: TenantSettingsPatch): TenantSettings {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) throw ValidationError.field('body', 'the body must be an object');
    const unknown = Object.keys(input).filter((k) => !(SECTIONS as readonly string[]).includes(k));
    if (unknown.length > 0) throw ValidationError.field(unknown[0], `${unknown[0]} is not a setting`, 'unknown');
    const next = this.toState();
    if (input.timezone !== undefined) next.timezone = parseTimeZone(input.timezone);
    if (input.cash_application !== undefined) {
      const section = object('cash_application', input.cash_application, ['short_pay_tolerance', 'payer_name_matching']);
      const tolerance = object('cash_application.short_pay_tolerance', section.short_pay_tolerance, ['amount', 'percent']);
      next.shortPayAmount = toleranceAmount(tolerance.amount);
      next.shortPayPercentScaled = tolerancePercent(tolerance.percent);
      next.payerNameMatching = boolean('cash_application.payer_name_matching', section.payer_name_matching);
    }
    if (input.reminders !== undefined) {
      const section = object('reminders', input.reminders, ['enabled', 'days']);
      next.remindersEnabled = boolean('reminders.enabled', section.enabled);
      next.reminderDays = reminderDays(section.days);
    }
    return new TenantSettings(next);
  }

  equals(other: TenantSettings): boolean {
    return JSON.stringify(this.toJSON()) === JSON.stringify(other.toJSON());
  }
}

function toleranceAmount(value: unknown): number {
  const field = 'cash_application.short_pay_tolerance.amount';
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_TOLERANCE_AMOUNT) {
    throw ValidationError.field(field, `${field} must be an integer from 0 to ${MAX_TOLERANCE_AMOUNT} (minor units)`);
  }
  return value;
}

function tolerancePercent(value: unknown): bigint {
  const field = 'cash_application.short_pay_tolerance.percent';
  const message = `${field} must be a number from 0 to 100 with at most 4 decimal places`;
  if (typeof value !== 'number') throw ValidationError.field(field, message);
  let scaled: bigint;
  try {
    scaled = parseScaled(value, field);
  } catch {
    throw ValidationError.field(field, message);
  }
  if (scaled < 0n || scaled > 100n * DECIMAL_SCALE) throw ValidationError.field(field, message);
  return scaled;
}

function reminderDays(value: unknown): number[] {
  const field = 'reminders.days';
  if (!Array.isArray(value) || value.length > MAX_REMINDER_DAYS) {
    throw ValidationError.field(field, `${field} must be an array of at most ${MAX_REMINDER_DAYS} integers`);
  }
  value.forEach((d, i) => {
    if (typeof d !== 'number' || !Number.isInteger(d) || Math.abs(d) > REMINDER_DAY_RANGE) {
      throw ValidationError.field(`${field}[${i}]`, `${field}[${i}] must be an integer from -${REMINDER_DAY_RANGE} to ${REMINDER_DAY_RANGE}`);
    }
  });
  if (new Set(value).size !== value.length) throw ValidationError.field(field, `${field} must not repeat a day`);
  return [...(value as number[])].sort((a, b) => a - b);
}

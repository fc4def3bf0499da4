import { DomainError } from '../../../shared/domain/domain-error';
import { normalizePayerAccount, Payer } from '../../../shared/domain/payer';

/** The bank file formats of contract §14, as the `format` query parameter names them. */
export const BANK_FILE_FORMATS = ['camt.053', 'camt.054', 'bai2', 'mt940', 'csv'] as const;
export type BankFileFormat = (typeof BANK_FILE_FORMATS)[number];

export function isBankFileFormat(value: unknown): value is BankFileFormat {
  return typeof value === 'string' && (BANK_FILE_FORMATS as readonly string[]).includes(value);
}

/** Who paid, as the bank reports it (every part optional). */
export type BankPayer = Payer;

/** A structured reference the payer sent: camt `Strd/RfrdDocInf/Nb` with its `RfrdDocAmt`. */
export interface BankRemittanceLine {
  invoiceNumber: string;
  /** minor units of the entry's currency, null when the bank gave none */
  amount: number | null;
}

/** A credit the bank booked to one of the tenant's accounts: it becomes one payment. */
export interface BankCredit {
  /** 1-based number of the entry in the file, counting every entry (credits, debits, errors) */
  position: number;
  /** the statement's own account (IBAN or account number, normalised); '' when the format has none (CSV) */
  account: string;
  /** the bank's id of the entry; null when the file gives none */
  bankEntryId: string | null;
  /** minor units, > 0 */
  amount: number;
  /** lowercase ISO 4217 */
  currency: string;
  /** YYYY-MM-DD */
  bookingDate: string;
  payer: BankPayer;
  /** the unstructured remittance text */
  reference: string | null;
  remittance: BankRemittanceLine[];
  /** how the money came, when the format says (BAI2 type codes); else `other` */
  method?: 'ach' | 'wire' | 'check' | 'other';
}

export type SkipReason = 'debit' | 'reversal' | 'not_booked' | 'deposit_total';

/** What a parser reports for each entry of the file, in file order. */
export type BankFileItem =
  | { kind: 'credit'; entry: BankCredit }
  | { kind: 'skipped'; position: number; reason: SkipReason }
  | { kind: 'error'; position: number; code: string; message: string };

/** Longest free text kept from a file (a payment's reference), longer text is cut. */
export const MAX_TEXT_LENGTH = 1000;
/** At most this many structured references per entry; more is a bad entry. */
export const MAX_REMITTANCE_LINES = 100;

/**
 * One entry of the file cannot be imported (an amount that is not a number, a missing date):
 * it is reported in the import's `errors` and the other entries go in.
 */
export class BankEntryError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'BankEntryError';
  }
}

/**
 * The file as a whole is unusable: not well formed, not the format named, truncated. Nothing
 * of it is imported (422).
 */
export class BankFileRejectedError extends DomainError {
  constructor(message: string) {
    super('invalid_bank_file', message);
    this.name = 'BankFileRejectedError';
  }
}

/** IBANs and account numbers as §14 compares them: no spaces, upper case; null when empty. */
export const normalizeAccount = normalizePayerAccount;

/** Collapses whitespace, trims and bounds free text; null when nothing is left. */
export function cleanText(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = value.replace(/\s+/g, ' ').trim();
  if (text === '') return null;
  return text.length > MAX_TEXT_LENGTH ? text.slice(0, MAX_TEXT_LENGTH) : text;
}

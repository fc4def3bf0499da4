export type CreditStatus = 'ok' | 'over_limit' | 'on_hold';
export const CREDIT_STATUSES: readonly CreditStatus[] = ['ok', 'over_limit', 'on_hold'];

export interface CreditPosition {
  creditLimit: number | null;
  creditHold: boolean;
  balance: number;
}

/** `credit_limit − balance`, negative when over; null without a limit (contract §6). */
export function creditAvailable(p: CreditPosition): number | null {
  return p.creditLimit === null ? null : p.creditLimit - p.balance;
}

/** A hold wins over the limit; over the limit means owing more than it (at the limit is still ok). */
export function creditStatus(p: CreditPosition): CreditStatus {
  if (p.creditHold) return 'on_hold';
  if (p.creditLimit !== null && p.balance > p.creditLimit) return 'over_limit';
  return 'ok';
}

import { Figure, figure, toBigInt } from '../../../shared/domain/figure';

export type CreditStatus = 'ok' | 'over_limit' | 'on_hold';
export const CREDIT_STATUSES: readonly CreditStatus[] = ['ok', 'over_limit', 'on_hold'];

export interface CreditPosition {
  creditLimit: number | null;
  creditHold: boolean;
  balance: Figure;
}

/** `credit_limit − balance`, negative when over; null without a limit (contract §6). Exact for any balance. */
export function creditAvailable(p: CreditPosition): Figure | null {
  return p.creditLimit === null ? null : figure(BigInt(p.creditLimit) - toBigInt(p.balance));
}

/** A hold wins over the limit; over the limit means owing more than it (at the limit is still ok). */
export function creditStatus(p: CreditPosition): CreditStatus {
  if (p.creditHold) return 'on_hold';
  if (p.creditLimit !== null && toBigInt(p.balance) > BigInt(p.creditLimit)) return 'over_limit';
  return 'ok';
}

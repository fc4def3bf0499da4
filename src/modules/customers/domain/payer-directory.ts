/** A customer a payer may be, as payer identification sees it. */
export interface PayerCandidate {
  id: string;
  name: string;
}

/**
 * Looks payers up among a tenant's customers (contract §14): by a payer account linked to the
 * customer, or by a normalised name equal to the customer's name or one of its aliases. Only
 * customers in the payment's currency can be the payer (a customer has one currency).
 */
export abstract class PayerDirectory {
  /** Up to `limit` customers, oldest first; `key` is already normalised. */
  abstract find(tenantId: string, query: { kind: 'account' | 'name'; key: string; currency: string; limit: number }): Promise<PayerCandidate[]>;
  /**
   * Several look-ups in one statement (a bank import group): for each query, what `find` answers,
   * in the same order.
   */
  abstract findMany(
    tenantId: string,
    queries: readonly { kind: 'account' | 'name'; key: string; currency: string }[],
    limit: number,
  ): Promise<PayerCandidate[][]>;
}

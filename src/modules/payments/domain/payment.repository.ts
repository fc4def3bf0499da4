import { Payment } from './payment.aggregate';

/** Port for payments; the abstract class doubles as the DI token. */
export abstract class PaymentRepository {
  /**
   * Locks the payment row (SELECT … FOR UPDATE): the first lock of every cash-application command.
   * A payment this transaction inserted is locked already: the same instance is returned, unread.
   */
  abstract findByIdForUpdate(tenantId: string, id: string): Promise<Payment | null>;
  abstract insert(payment: Payment): Promise<void>;
  /** Writes changes (with a version check), then publishes the recorded events. */
  abstract save(payment: Payment): Promise<void>;
  /**
   * New payments already matched in memory (a bank import group, set-wise): each row as insert()
   * followed by save() would leave it, and their applications, in one statement each. Events and
   * ledger movements stay with the caller (it writes them in the order the per-entry path would).
   */
  abstract insertMany(payments: readonly Payment[]): Promise<void>;
}

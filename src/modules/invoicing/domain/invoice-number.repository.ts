/**
 * Port for per-tenant invoice numbers. `next()` returns INV-000001, INV-000002, ... from a
 * counter row locked by the calling transaction: numbers stay unique and gapless under
 * concurrency, because a rolled-back transaction also rolls back its increment.
 */
export abstract class InvoiceNumberRepository {
  abstract next(tenantId: string): Promise<string>;

  /**
   * Serialises with `next()` for the rest of the transaction, so an explicit number and a
   * generated one cannot be handed out twice at the same time.
   */
  abstract lock(tenantId: string): Promise<void>;
}

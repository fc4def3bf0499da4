import { inJsonbOrder } from '../../../shared/infrastructure/database/jsonb-order';
import { PaymentJson, PaymentSnapshot, presentPayment } from '../domain/payment.snapshot';

/**
 * A payment just written, presented as SqlPaymentReadModel.get() reads it back: its applications
 * in the read's order (applied at, then id: ids sort by creation time, not by the order they were
 * made in within one millisecond), and the objects of its jsonb columns (metadata, match
 * suggestions) with their keys in jsonb's order. Everything else the row holds is what the
 * snapshot holds. Plain code (the bench's raw-SQL baseline presents its payments with it too).
 */
export function presentWrittenPayment(snapshot: PaymentSnapshot): PaymentJson {
  const applications = [...snapshot.applications].sort(
    (a, b) => a.appliedAt.getTime() - b.appliedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const json = presentPayment({ ...snapshot, applications });
  return { ...json, metadata: inJsonbOrder(json.metadata), match: { ...json.match, suggestions: inJsonbOrder(json.match.suggestions) } };
}

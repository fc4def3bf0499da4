import { Injectable } from '@nestjs/common';
import { ValidationError } from '../../../shared/domain/domain-error';
import { normalizePayerAccount, normalizePayerName } from '../../../shared/domain/payer';
import { TenantSettingsReader } from '../../settings';
import { parseInvoiceReferences } from '../domain/matching/invoice-reference.parser';
import { MatchCandidate, PayerCandidate } from '../domain/matching/match-candidate';
import { GroupMatchCandidates, GroupReads, payerKey } from './matching-ports';
import { RecordPaymentInput, recordedPayment } from './record-payment.command';

/**
 * Which customers the automatic matching of each payment of a group may read or change: those of
 * every invoice it names (rules 1–2, whatever their status) and every customer its payer account
 * or name points to (rules 3–5, payer review). Payments with no customer in common are independent:
 * recorded in either order, or at once in two transactions, they end the same. Read without locks:
 * a plan, not a decision — each transaction decides on what it reads and locks itself.
 */
@Injectable()
export class PaymentGroupPlanner {
  constructor(
    private readonly candidates: GroupMatchCandidates,
    private readonly settings: TenantSettingsReader,
  ) {}

  /**
   * For each input, the customers it may touch, and the reads that told (for the group's transaction to
   * decide on, GroupReads); null when the group is too wide to plan (record it as one).
   */
  async plan(tenantId: string, inputs: readonly RecordPaymentInput[]): Promise<{ touched: string[][]; reads: GroupReads } | null> {
    const settings = await this.settings.get(tenantId);
    const at = { now: new Date(), today: '1970-01-01' };
    const planned = inputs.map((input) => {
      try {
        const payment = recordedPayment(tenantId, input, null, undefined, at, false); // its checks and fields; nothing is announced
        const nameMatching = payment.payer?.name ? settings.payerNameMatching : false;
        const account = normalizePayerAccount(payment.payer?.account);
        const name = nameMatching ? normalizePayerName(payment.payer?.name) : null;
        return {
          currency: payment.currency,
          named: {
            ids: payment.remittance.flatMap((l) => (l.invoiceId ? [l.invoiceId] : [])),
            numbers: payment.remittance.flatMap((l) => (l.invoiceNumber ? [l.invoiceNumber] : [])),
            references: parseInvoiceReferences(payment.reference),
          },
          payers: [...(account === null ? [] : [{ kind: 'account' as const, key: account }]), ...(name === null ? [] : [{ kind: 'name' as const, key: name }])],
        };
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        return null; // refused before anything is written: touches nothing
      }
    });
    const valid = planned.flatMap((p) => (p ? [p] : []));
    const named = await this.candidates.named(tenantId, valid.map((p) => p.named));
    if (named === null) return null;
    const queries = valid.flatMap((p) => p.payers.map((k) => ({ ...k, currency: p.currency })));
    const payers = await this.candidates.payers(tenantId, queries);
    let v = 0;
    let q = 0;
    const namedByInput: MatchCandidate[][] = [];
    const payersByKey = new Map<string, PayerCandidate[]>();
    const touched = planned.map((p) => {
      if (p === null) {
        namedByInput.push([]);
        return [];
      }
      const mine = named[v++];
      namedByInput.push(mine);
      const customers = new Set(mine.map((c) => c.customerId));
      for (const k of p.payers) {
        const found = payers[q++];
        payersByKey.set(payerKey(k.kind, k.key, p.currency), found);
        for (const c of found) customers.add(c.id);
      }
      return [...customers];
    });
    return { touched, reads: { named: namedByInput, payers: payersByKey } };
  }
}

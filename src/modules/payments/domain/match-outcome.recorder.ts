import { MatchStatus } from './payment.snapshot';

/** Counts what automatic matching decided, per tenant (a port: Prometheus counters in the infrastructure). */
export abstract class MatchOutcomeRecorder {
  /** Counted once the transaction that decided commits. */
  abstract record(tenantId: string, status: MatchStatus, rule: string | null): void;
}

import { Injectable } from '@nestjs/common';
import { Counter, register } from 'prom-client';
import { UnitOfWork } from '../../../shared/infrastructure/database/unit-of-work';
import { MatchOutcomeRecorder } from '../domain/match-outcome.recorder';
import { MatchStatus } from '../domain/payment.snapshot';

/** One counter for the process (every application instance in it shares prom-client's default registry). */
const OUTCOMES =
  (register.getSingleMetric('cash_application_payments_total') as Counter<'tenant' | 'status' | 'rule'> | undefined) ??
  new Counter({
    name: 'cash_application_payments_total',
    help: 'Payments automatic matching decided, by tenant, match status and the rule that applied or found the candidates',
    labelNames: ['tenant', 'status', 'rule'] as const,
  });

@Injectable()
export class PrometheusMatchOutcomeRecorder extends MatchOutcomeRecorder {
  constructor(private readonly uow: UnitOfWork) {
    super();
  }

  record(tenantId: string, status: MatchStatus, rule: string | null): void {
    this.uow.afterCommit(() => OUTCOMES.inc({ tenant: tenantId, status, rule: rule ?? 'none' }));
  }
}

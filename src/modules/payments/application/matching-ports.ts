import { MatchCandidateSource } from '../domain/matching/match-candidate';

/** Port: where automatic matching reads one tenant's candidate invoices (without locks). */
export abstract class MatchCandidates {
  abstract forTenant(tenantId: string): MatchCandidateSource;
}

/**
 * Port: serialises automatic matching for one customer until the transaction ends, so that
 * concurrent payments of one customer decide one after the other on fresh figures.
 */
export abstract class CustomerMatchingLock {
  abstract lock(tenantId: string, customerId: string): Promise<void>;
}

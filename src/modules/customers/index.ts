/** What other modules may use from customers. */
export { CustomersModule } from './customers.module';
export { Customer, type CustomerInput, type CustomerSnapshot, type BillingAddress } from './domain/customer.aggregate';
export { CustomerRepository } from './domain/customer.repository';
export { PayerDirectory, type PayerCandidate } from './domain/payer-directory';
export { LEDGER_ENTRY_TYPES, type LedgerEntryInput, type LedgerEntryType } from './domain/ledger-entry';
export { AGING_BUCKETS, emptyAging, type Aging, type AgingBucket } from './domain/aging';
export { creditAvailable, creditStatus, type CreditStatus } from './domain/credit';
export { LedgerWriter } from './infrastructure/ledger.writer';
export { CUSTOMER_FIGURES_AT_COMMIT } from './infrastructure/customer-figures.sql';

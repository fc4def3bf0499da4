import { Foundation1763800000000 } from './1763800000000-foundation';
import { CustomersInvoicing1763800100000 } from './1763800100000-customers-invoicing';
import { Payments1763800200000 } from './1763800200000-payments';
import { Webhooks1763800300000 } from './1763800300000-webhooks';
import { CustomerSummary1763800400000 } from './1763800400000-customer-summary';
import { OpenInvoicesByDueDate1763800500000 } from './1763800500000-open-invoices-by-due-date';
import { PaymentSummaryOnRealChanges1763800600000 } from './1763800600000-payment-summary-on-real-changes';
import { FiguresKeptAndGuardedByTheDatabase1763801200000 } from './1763801200000-figures-kept-and-guarded-by-the-database';
import { IdempotencyResponseHeaders1763801200100 } from './1763801200100-idempotency-response-headers';
import { OneCurrencyPerCustomer1763801200200 } from './1763801200200-one-currency-per-customer';
import { TenantSettings1763801300000 } from './1763801300000-tenant-settings';
import { Payers1763801400000 } from './1763801400000-payers';
import { BankStatements1763801400100 } from './1763801400100-bank-statements';
import { WriteOffs1763801500000 } from './1763801500000-write-offs';
import { CreditNotes1763801510000 } from './1763801510000-credit-notes';
import { Refunds1763801520000 } from './1763801520000-refunds';
import { InvoiceReminders1763801600000 } from './1763801600000-invoice-reminders';
import { IdempotencySecretsNotStored1764300000000 } from './1764300000000-idempotency-secrets-not-stored';
import { WebhookRelayInstances1764400000000 } from './1764400000000-webhook-relay-instances';
import { WebhookDeliveriesDuePerEndpoint1764400000100 } from './1764400000100-webhook-deliveries-due-per-endpoint';
import { ApiClientChangeNotify1764400000200 } from './1764400000200-api-client-change-notify';
import { MatchWriteOffs1764500000000 } from './1764500000000-match-write-offs';
import { FigureChecksInOneStatement1764650000000 } from './1764650000000-figure-checks-in-one-statement';
import { CustomerFiguresGuardWhen1764650000100 } from './1764650000100-customer-figures-guard-when';
import { CustomerFiguresMovedPerStatement1764700000000 } from './1764700000000-customer-figures-moved-per-statement';
import { PaymentFiguresMovedPerStatement1764700000100 } from './1764700000100-payment-figures-moved-per-statement';
import { FigureChecksInTheTrigger1764700000200 } from './1764700000200-figure-checks-in-the-trigger';
import { FigureMovesPlannedOnce1764700000300 } from './1764700000300-figure-moves-planned-once';
import { CustomerFiguresMovedOncePerTransaction1764900000000 } from './1764900000000-customer-figures-moved-once-per-transaction';
import { BankEntryKeysWrittenOnce1764940000000 } from './1764940000000-bank-entry-keys-written-once';
import { BankStatementTallies1764940000100 } from './1764940000100-bank-statement-tallies';
import { BankStatementEntriesUpdatedInPlace1764940000200 } from './1764940000200-bank-statement-entries-updated-in-place';
import { FigureChecksOncePerRow1765000100000 } from './1765000100000-figure-checks-once-per-row';
import { WebhookOutboxFanOut1765000200000 } from './1765000200000-webhook-outbox-fan-out';
import { OutboxFillfactor1765000200100 } from './1765000200100-outbox-fillfactor';
import { OutboxFanOutWithoutQuadraticJoin1765100000000 } from './1765100000000-outbox-fan-out-without-quadratic-join';
import { CustomerFigureMovesSummedWithoutAJoin1765100000100 } from './1765100000100-customer-figure-moves-summed-without-a-join';
import { OutboxPublishedAtInsertWithoutEndpoints1765200200000 } from './1765200200000-outbox-published-at-insert-without-endpoints';

/** Every migration, in order. Listed explicitly so the build, the CLI and jest load the same classes. */
export const MIGRATIONS = [
  Foundation1763800000000,
  CustomersInvoicing1763800100000,
  Payments1763800200000,
  Webhooks1763800300000,
  CustomerSummary1763800400000,
  OpenInvoicesByDueDate1763800500000,
  PaymentSummaryOnRealChanges1763800600000,
  FiguresKeptAndGuardedByTheDatabase1763801200000,
  IdempotencyResponseHeaders1763801200100,
  OneCurrencyPerCustomer1763801200200,
  TenantSettings1763801300000,
  Payers1763801400000,
  BankStatements1763801400100,
  WriteOffs1763801500000,
  CreditNotes1763801510000,
  Refunds1763801520000,
  InvoiceReminders1763801600000,
  IdempotencySecretsNotStored1764300000000,
  WebhookRelayInstances1764400000000,
  WebhookDeliveriesDuePerEndpoint1764400000100,
  ApiClientChangeNotify1764400000200,
  MatchWriteOffs1764500000000,
  FigureChecksInOneStatement1764650000000,
  CustomerFiguresGuardWhen1764650000100,
  CustomerFiguresMovedPerStatement1764700000000,
  PaymentFiguresMovedPerStatement1764700000100,
  FigureChecksInTheTrigger1764700000200,
  FigureMovesPlannedOnce1764700000300,
  CustomerFiguresMovedOncePerTransaction1764900000000,
  BankEntryKeysWrittenOnce1764940000000,
  BankStatementTallies1764940000100,
  BankStatementEntriesUpdatedInPlace1764940000200,
  FigureChecksOncePerRow1765000100000,
  WebhookOutboxFanOut1765000200000,
  OutboxFillfactor1765000200100,
  OutboxFanOutWithoutQuadraticJoin1765100000000,
  CustomerFigureMovesSummedWithoutAJoin1765100000100,
  OutboxPublishedAtInsertWithoutEndpoints1765200200000,
];

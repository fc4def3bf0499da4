/** What other modules may use from bank-statements. */
export { BankStatementsModule } from './bank-statements.module';
export { BANK_STATEMENT_COMPLETED } from './domain/bank-statement';

/** What other modules may use from invoicing. */
export { InvoicingModule } from './invoicing.module';
export { Invoice, MAX_LINES, type InvoiceCustomer, type CreateInvoiceParams, type InvoicePatch, type DisputeInput } from './domain/invoice.aggregate';
export { InvoiceRepository, type OpenInvoiceQuery } from './domain/invoice.repository';
export { INVOICE_STATUSES, isInvoiceStatus, type InvoiceStatus } from './domain/invoice-status';
export { InvoiceEvents, type InvoiceEventType } from './domain/invoice.events';
export { presentInvoice, isOverdue, amountDueOf, type InvoiceJson, type InvoiceSnapshot, type CustomerSummary } from './domain/invoice.snapshot';
export { WRITE_OFF_REASONS, isWriteOffReason, type WriteOffReason, type WriteOffRequest, type WriteOffSnapshot } from './domain/write-off';
export { WriteOffInvoiceCommand } from './application/write-off-invoice.command';
export { LineItem, totalsOf, type LineItemInput, type LineItemSnapshot, type LineItemJson } from './domain/line-item.value-object';
export { InvoiceResponse, LineItemResponse } from './api/invoice.response';
export { LineItemRequest } from './api/invoice.request';
export { invoiceLedgerEntry, type ReceivableMovement } from './domain/receivable-movement';

/** Stable public event names the invoice aggregate records (contract §10). */
export const InvoiceEvents = {
  created: 'invoice.created',
  updated: 'invoice.updated',
  finalized: 'invoice.finalized',
  paid: 'invoice.paid',
  voided: 'invoice.voided',
  markedUncollectible: 'invoice.marked_uncollectible',
  writtenOff: 'invoice.written_off',
  disputeOpened: 'dispute.opened',
  disputeResolved: 'dispute.resolved',
} as const;

export type InvoiceEventType = (typeof InvoiceEvents)[keyof typeof InvoiceEvents];

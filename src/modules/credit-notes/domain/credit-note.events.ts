/** Stable public event names of credit notes (contract §10); never derived from class names. */
export const CreditNoteEvents = {
  created: 'credit_note.created',
  applied: 'credit_note.applied',
  voided: 'credit_note.voided',
  /** beyond the contract's list (§10 names payment.refunded only): a credit note's remaining credit paid back */
  refunded: 'credit_note.refunded',
} as const;

export type CreditNoteEventType = (typeof CreditNoteEvents)[keyof typeof CreditNoteEvents];

/** Stable public event names of credit notes (contract §10); never derived from class names. */
export const CreditNoteEvents = {
  created: 'credit_note.created',
  applied: 'credit_note.applied',
  voided: 'credit_note.voided',
} as const;

export type CreditNoteEventType = (typeof CreditNoteEvents)[keyof typeof CreditNoteEvents];

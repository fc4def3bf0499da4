/** What other modules may use from credit notes. */
export { CreditNotesModule } from './credit-notes.module';
export { CreditNoteEvents } from './domain/credit-note.events';

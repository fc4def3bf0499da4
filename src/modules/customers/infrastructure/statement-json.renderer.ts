import { Figure } from '../../../shared/domain/figure';
import { toJson } from '../../../shared/http/json-reply';
import { FigureAging } from '../domain/aging';
import { StatementLine, StatementReading, StatementSummary } from '../application/statement-read-model';

/** The statement's JSON representation (contract §9), in this key order. */
export interface StatementView {
  customer: StatementSummary['customer'];
  currency: string;
  from: string;
  to: string;
  opening_balance: Figure;
  lines: StatementLine[];
  total_debits: Figure;
  total_credits: Figure;
  closing_balance: Figure;
  aging: FigureAging;
  unapplied_credit: Figure;
  generated_at: string;
}

export function statementView(s: StatementSummary, lines: StatementLine[]): StatementView {
  return {
    customer: s.customer,
    currency: s.currency,
    from: s.from,
    to: s.to,
    opening_balance: s.opening_balance,
    lines,
    total_debits: s.total_debits,
    total_credits: s.total_credits,
    closing_balance: s.closing_balance,
    aging: s.aging,
    unapplied_credit: s.unapplied_credit,
    generated_at: s.generated_at,
  };
}

const LINES_PER_CHUNK = 500;

/**
 * The same JSON as `statementView`, written as the lines come from the cursor: the text before
 * and after the `lines` array is the serialised view with no lines (only numbers, the aging and a
 * timestamp follow `lines`, so its last `"lines":[]` is the array's place).
 */
export async function* statementJsonChunks(reading: StatementReading): AsyncGenerator<string> {
  const empty = toJson(statementView(reading.summary, []));
  const at = empty.lastIndexOf('"lines":[]');
  yield `${empty.slice(0, at)}"lines":[`;
  let chunk: string[] = [];
  let first = true;
  for await (const line of reading.lines) {
    chunk.push(toJson(line));
    if (chunk.length === LINES_PER_CHUNK) {
      yield `${first ? '' : ','}${chunk.join(',')}`;
      first = false;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield `${first ? '' : ','}${chunk.join(',')}`;
  yield `]${empty.slice(at + '"lines":[]'.length)}`;
}

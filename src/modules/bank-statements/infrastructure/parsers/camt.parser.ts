import { bankCurrency, decimalToMinor, isoDate } from '../../domain/bank-amount';
import {
  BankCredit,
  BankEntryError,
  BankFileItem,
  BankFileRejectedError,
  BankPayer,
  BankRemittanceLine,
  cleanText,
  MAX_REMITTANCE_LINES,
  normalizeAccount,
} from '../../domain/bank-entry';
import { BankFileSource } from './text-lines';
import { child, childrenNamed, streamXml, textAt, XmlNode } from './xml-stream';

/** The two ISO 20022 bank-to-customer messages of §14 and the elements that hold their statements. */
const MESSAGES = {
  '053': { root: 'BkToCstmrStmt', statement: 'Stmt', name: 'camt.053 (bank-to-customer statement)' },
  '054': { root: 'BkToCstmrDbtCdtNtfctn', statement: 'Ntfctn', name: 'camt.054 (debit/credit notification)' },
} as const;
export type CamtMessage = keyof typeof MESSAGES;

const NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:camt\.(\d{3})\.001\.(\d{2})$/;

interface StatementContext {
  account: string | null;
}

/**
 * ISO 20022 camt.053 / camt.054 (any version, .001.02 to .001.13), streamed with saxes: one
 * entry (`Ntry`) is built in memory at a time. Every statement (`Stmt` / `Ntfctn`) of the file
 * contributes its entries under its own account. Field mapping of §14: the entry's
 * `AcctSvcrRef` (else its one transaction's `Refs/AcctSvcrRef`, else `NtryRef`) is the bank's
 * entry id; the payer is `RltdPties/Dbtr` (name; `DbtrAcct` IBAN or `Othr/Id`) with
 * `RltdAgts/DbtrAgt` as the payer's bank; `Ustrd` lines joined by a space are the reference,
 * `Strd/RfrdDocInf/Nb` with `RfrdDocAmt` the remittance. `RvslInd=true` and debits are skipped,
 * as are entries not yet booked (status other than BOOK). A batch entry whose transactions each
 * carry an amount that add up to it becomes one payment per transaction.
 */
export function camtParser(message: CamtMessage) {
  const spec = MESSAGES[message];
  return async function* parseCamt(source: BankFileSource): AsyncGenerator<BankFileItem> {
    let documentDepth = 0;
    let sawRoot = false;
    let statements = 0;
    let statement: StatementContext | null = null;
    let position = 0;
    const items: BankFileItem[] = [];

    const handler = {
      open({ local, uri, depth, path }: { local: string; uri: string; depth: number; path: readonly string[] }): boolean {
        if (!documentDepth) {
          if (local !== 'Document') return false;
          const ns = NAMESPACE.exec(uri);
          if (uri !== '' && !ns) throw new BankFileRejectedError(`the Document's namespace "${uri.slice(0, 100)}" is not an ISO 20022 camt message`);
          if (ns && ns[1] !== message) throw new BankFileRejectedError(`the file is a camt.${ns[1]}, not a ${spec.name}`);
          documentDepth = depth;
          return false;
        }
        if (depth === documentDepth + 1) {
          if (local !== spec.root) throw new BankFileRejectedError(`the Document holds ${local}, not ${spec.root}: not a ${spec.name}`);
          sawRoot = true;
          return false;
        }
        if (depth === documentDepth + 2 && local === spec.statement && path[depth - 2] === spec.root) {
          statements++;
          statement = { account: null };
          return false;
        }
        if (statement && depth === documentDepth + 3 && (local === 'Acct' || local === 'Ntry')) return true;
        return false;
      },
      subtree(node: XmlNode) {
        if (node.name === 'Acct') {
          statement!.account = normalizeAccount(textAt(node, 'Id', 'IBAN') ?? textAt(node, 'Id', 'Othr', 'Id'));
          return;
        }
        if (!statement!.account) throw new BankFileRejectedError(`statement ${statements} has an entry before (or without) its account (Acct/Id)`);
        for (const item of entryItems(node, statement!.account, () => ++position)) items.push(item);
      },
    };

    yield* streamXml(
      source,
      handler,
      () => items.splice(0),
      () => items.push({ kind: 'error', position: ++position, code: 'entry_too_large', message: 'the entry is larger than any bank writes; it was not read' }),
    );
    if (!documentDepth) throw new BankFileRejectedError(`no ISO 20022 Document element: not a ${spec.name}`);
    if (!sawRoot || statements === 0) throw new BankFileRejectedError(`no ${spec.statement} in the file: not a ${spec.name}`);
  };
}

function entryItems(ntry: XmlNode, account: string, nextPosition: () => number): BankFileItem[] {
  const position = nextPosition();
  try {
    const reversal = /^(true|1)$/i.test(textAt(ntry, 'RvslInd') ?? '');
    if (reversal) return [{ kind: 'skipped', position, reason: 'reversal' }];
    const indicator = textAt(ntry, 'CdtDbtInd');
    if (indicator === 'DBIT') return [{ kind: 'skipped', position, reason: 'debit' }];
    if (indicator !== 'CRDT') throw new BankEntryError('invalid_entry', `CdtDbtInd "${(indicator ?? '').slice(0, 10)}" is neither CRDT nor DBIT`);
    // .02–.04: <Sts>BOOK</Sts>; .05 and later: <Sts><Cd>BOOK</Cd></Sts>
    const status = textAt(ntry, 'Sts', 'Cd') ?? textAt(ntry, 'Sts', 'Prtry') ?? textAt(ntry, 'Sts');
    if (status !== undefined && status !== 'BOOK') return [{ kind: 'skipped', position, reason: 'not_booked' }];

    const amountNode = child(ntry, 'Amt');
    const currency = bankCurrency(amountNode?.attrs.Ccy);
    const amount = decimalToMinor(amountNode?.text ?? '', currency);
    const bookingDate = isoDate(textAt(ntry, 'BookgDt', 'Dt') ?? textAt(ntry, 'BookgDt', 'DtTm'));
    const transactions = childrenNamed(ntry, 'NtryDtls').flatMap((d) => childrenNamed(d, 'TxDtls'));
    const entryRef = textAt(ntry, 'AcctSvcrRef');
    const base = { account, currency, bookingDate };

    const split = splitBatch(transactions, amount, currency);
    if (split) {
      const refs = transactions.map((tx) => textAt(tx, 'Refs', 'AcctSvcrRef'));
      const ownRefs = refs.every((r) => r !== undefined) && new Set(refs).size === refs.length;
      const entryId = entryRef ?? textAt(ntry, 'NtryRef');
      // read every transaction first: a bad one makes the whole entry one error, numbered once
      const parts = transactions.map((tx) => details([tx], currency, ntry));
      return parts.map((part, i) =>
        credit({
          ...base,
          position: i === 0 ? position : nextPosition(),
          bankEntryId: ownRefs ? refs[i]! : entryId ? `${entryId}/${i + 1}` : null,
          amount: split[i],
          ...part,
        }),
      );
    }
    const bankEntryId = entryRef ?? (transactions.length === 1 ? textAt(transactions[0], 'Refs', 'AcctSvcrRef') : undefined) ?? textAt(ntry, 'NtryRef');
    // One object per credit (not spread again by credit()): its id is cleaned here.
    const { payer, reference, remittance } = details(transactions, currency, ntry);
    return [{ kind: 'credit', entry: { account, currency, bookingDate, position, bankEntryId: cleanText(bankEntryId), amount, payer, reference, remittance } }];
  } catch (error) {
    if (error instanceof BankEntryError) return [{ kind: 'error', position, code: error.code, message: error.message }];
    throw error;
  }
}

function credit(entry: BankCredit): BankFileItem {
  return { kind: 'credit', entry: { ...entry, bankEntryId: cleanText(entry.bankEntryId) } };
}

/** A transaction's own amount: `Amt` (.05 and later) or `AmtDtls/TxAmt/Amt`. */
function transactionAmount(tx: XmlNode): XmlNode | undefined {
  return child(tx, 'Amt') ?? child(tx, 'AmtDtls', 'TxAmt', 'Amt');
}

/**
 * The amounts of a batch's transactions when they make the entry up exactly (each in the entry's
 * currency, none a debit); otherwise null and the entry stays one payment.
 */
function splitBatch(transactions: XmlNode[], amount: number, currency: string): number[] | null {
  if (transactions.length < 2) return null;
  const amounts: number[] = [];
  for (const tx of transactions) {
    const node = transactionAmount(tx);
    if (!node || (node.attrs.Ccy ?? '').toLowerCase() !== currency) return null;
    const indicator = textAt(tx, 'CdtDbtInd');
    if (indicator !== undefined && indicator !== 'CRDT') return null;
    try {
      amounts.push(decimalToMinor(node.text, currency));
    } catch {
      return null;
    }
  }
  return amounts.reduce((a, b) => a + b, 0) === amount ? amounts : null;
}

/** Payer, reference and remittance of one payment made of these transactions. */
function details(transactions: XmlNode[], currency: string, ntry: XmlNode): Pick<BankCredit, 'payer' | 'reference' | 'remittance'> {
  const payers = transactions.map(payerOf);
  const same = payers.every((p) => p.name === payers[0].name && p.account === payers[0].account && p.bankId === payers[0].bankId);
  const ustrd = transactions.flatMap((tx) => childrenNamed(child(tx, 'RmtInf'), 'Ustrd').map((u) => u.text.trim()));
  // No unstructured remittance at all: many banks write the payer's text in the additional information.
  const fallback = ustrd.length === 0 ? [...transactions.map((tx) => textAt(tx, 'AddtlTxInf')), textAt(ntry, 'AddtlNtryInf')] : [];
  return {
    payer: payers.length > 0 && same ? payers[0] : { name: null, account: null, bankId: null },
    reference: cleanText([...ustrd, ...fallback].filter((t) => t).join(' ')),
    remittance: transactions.flatMap((tx) => remittanceOf(tx, currency)),
  };
}

function payerOf(tx: XmlNode): BankPayer {
  const parties = child(tx, 'RltdPties');
  const agent = child(tx, 'RltdAgts', 'DbtrAgt', 'FinInstnId');
  return {
    // .02–.07: Dbtr/Nm; .08 and later: Dbtr/Pty/Nm
    name: cleanText(textAt(parties, 'Dbtr', 'Nm') ?? textAt(parties, 'Dbtr', 'Pty', 'Nm')),
    account: normalizeAccount(textAt(parties, 'DbtrAcct', 'Id', 'IBAN') ?? textAt(parties, 'DbtrAcct', 'Id', 'Othr', 'Id')),
    bankId: normalizeAccount(textAt(agent, 'BIC') ?? textAt(agent, 'BICFI') ?? textAt(agent, 'ClrSysMmbId', 'MmbId')),
  };
}

/** `Strd/RfrdDocInf/Nb`, with the `RfrdDocAmt` (remitted, else due) when it belongs to one document. */
function remittanceOf(tx: XmlNode, currency: string): BankRemittanceLine[] {
  const lines: BankRemittanceLine[] = [];
  for (const strd of childrenNamed(child(tx, 'RmtInf'), 'Strd')) {
    const numbers = childrenNamed(strd, 'RfrdDocInf')
      .map((doc) => textAt(doc, 'Nb'))
      .filter((nb): nb is string => nb !== undefined);
    const amountNode = child(strd, 'RfrdDocAmt', 'RmtdAmt') ?? child(strd, 'RfrdDocAmt', 'DuePyblAmt');
    const amount =
      numbers.length === 1 && amountNode && (amountNode.attrs.Ccy ?? '').toLowerCase() === currency ? decimalToMinor(amountNode.text, currency) : null;
    for (const nb of numbers) lines.push({ invoiceNumber: cleanText(nb)!, amount });
  }
  if (lines.length > MAX_REMITTANCE_LINES) throw new BankEntryError('invalid_entry', `more than ${MAX_REMITTANCE_LINES} referred documents in one entry`);
  return lines;
}

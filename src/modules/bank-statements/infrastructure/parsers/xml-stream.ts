import { TextDecoder } from 'node:util';
import { SaxesParser, SaxesTagNS } from 'saxes';
import { BankFileRejectedError } from '../../domain/bank-entry';
import { BankFileSource } from './text-lines';

/** A small element tree, built only for the parts of a document a parser keeps (one entry at a time). */
export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  text: string;
  children: XmlNode[];
}

/** First descendant along a path of local names (`child(ntry, 'BookgDt', 'Dt')`). */
export function child(node: XmlNode | undefined, ...path: string[]): XmlNode | undefined {
  return along(node, path);
}

/** All children of that name. */
export function childrenNamed(node: XmlNode | undefined, name: string): XmlNode[] {
  return node ? node.children.filter((c) => c.name === name) : [];
}

/** Trimmed text at a path; undefined when absent or empty. */
export function textAt(node: XmlNode | undefined, ...path: string[]): string | undefined {
  const text = along(node, path)?.text.trim();
  return text ? text : undefined;
}

// Plain loops: a camt entry is read through some twenty of these paths (no closure, no spread per step).
function along(node: XmlNode | undefined, path: readonly string[]): XmlNode | undefined {
  let current = node;
  for (let i = 0; i < path.length && current; i++) {
    const name = path[i];
    const children = current.children;
    current = undefined;
    for (let j = 0; j < children.length; j++) {
      if (children[j].name === name) {
        current = children[j];
        break;
      }
    }
  }
  return current;
}

/** What the streaming reader tells its user. */
export interface XmlStreamHandler {
  /** an element opens at `depth` (1 = the root); return true to have it and its subtree built */
  open(tag: { local: string; uri: string; depth: number; path: readonly string[] }): boolean;
  /** a built subtree is complete */
  subtree(node: XmlNode, depth: number): void;
}

const MAX_DEPTH = 64;
/** No entry of a bank statement comes near these; bigger means a hostile or broken file. */
const MAX_SUBTREE_NODES = 5_000;
const MAX_SUBTREE_TEXT = 256 * 1024;

export class SubtreeTooLargeError extends Error {}

/**
 * Reads an XML document as a stream with saxes (namespace-aware, well-formedness checked) and
 * builds element trees only for the subtrees the handler asks for, so memory is bounded by one
 * entry whatever the file's size. Documents with a DOCTYPE are refused: no bank sends one, and
 * it is how entity-expansion attacks begin. The text is decoded as the XML declaration says
 * (UTF-8 unless it names another encoding); bytes that are not valid in it make the file unreadable.
 * `onSubtreeTooLarge` is called instead of `subtree` for a subtree beyond the bounds.
 */
export async function* streamXml<T>(
  source: BankFileSource,
  handler: XmlStreamHandler,
  drain: () => T[],
  onSubtreeTooLarge: (depth: number) => void,
): AsyncGenerator<T> {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const path: string[] = [];
  // The subtree being built: its root's depth and the open elements inside it.
  let building: { depth: number; stack: XmlNode[]; nodes: number; text: number; tooLarge: boolean } | null = null;

  parser.on('doctype', () => {
    throw new BankFileRejectedError('the XML has a DOCTYPE declaration; bank statements have none');
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    path.push(tag.local);
    const depth = path.length;
    if (depth > MAX_DEPTH) throw new BankFileRejectedError(`XML nested deeper than ${MAX_DEPTH} elements`);
    if (building) {
      if (building.tooLarge) return;
      if (++building.nodes > MAX_SUBTREE_NODES) {
        building.tooLarge = true;
        return;
      }
      const node: XmlNode = { name: tag.local, attrs: attributes(tag), text: '', children: NO_CHILDREN };
      const parent = building.stack[building.stack.length - 1];
      if (parent.children === NO_CHILDREN) parent.children = [node];
      else parent.children.push(node);
      building.stack.push(node);
      return;
    }
    if (handler.open({ local: tag.local, uri: tag.uri, depth, path })) {
      building = { depth, stack: [{ name: tag.local, attrs: attributes(tag), text: '', children: NO_CHILDREN }], nodes: 1, text: 0, tooLarge: false };
    }
  });
  const onText = (text: string) => {
    if (!building || building.tooLarge) return;
    building.text += text.length;
    if (building.text > MAX_SUBTREE_TEXT) {
      building.tooLarge = true;
      return;
    }
    building.stack[building.stack.length - 1].text += text;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    const depth = path.length;
    path.pop();
    if (!building) return;
    if (depth === building.depth) {
      const done = building;
      building = null;
      if (done.tooLarge) onSubtreeTooLarge(depth);
      else handler.subtree(done.stack[0], depth);
    } else if (!building.tooLarge) {
      building.stack.pop();
    }
  });

  let decoder: TextDecoder | null = null;
  let head = Buffer.alloc(0);
  const feed = (text: string) => {
    try {
      parser.write(text);
    } catch (error) {
      throw notWellFormed(error);
    }
  };
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (!decoder) {
      // The XML declaration names the encoding; wait for enough of the head to read it.
      head = Buffer.concat([head, bytes]);
      if (head.length < 200 && head.indexOf('?>') < 0) continue;
      decoder = decoderFor(head);
      feed(decode(decoder, head, true).replace(/^\uFEFF/, ''));
      yield* drain();
      continue;
    }
    feed(decode(decoder, bytes, true));
    yield* drain();
  }
  if (!decoder) {
    decoder = decoderFor(head);
    feed(decode(decoder, head, true).replace(/^\uFEFF/, ''));
  }
  feed(decode(decoder, Buffer.alloc(0), false));
  try {
    parser.close();
  } catch (error) {
    throw notWellFormed(error);
  }
  yield* drain();
}

/** Shared by the elements without children (leaves: most of a bank file's elements) until one is added: never written to. */
const NO_CHILDREN: XmlNode[] = Object.freeze([]) as unknown as XmlNode[];

/** Shared by the elements without attributes (most of a bank file's): never written to. */
const NO_ATTRIBUTES: Record<string, string> = Object.freeze({}) as Record<string, string>;

function attributes(tag: SaxesTagNS): Record<string, string> {
  let attrs: Record<string, string> | null = null;
  for (const key in tag.attributes) {
    const attr = tag.attributes[key];
    if (attr.prefix !== 'xmlns' && attr.name !== 'xmlns') (attrs ??= {})[attr.local] = attr.value;
  }
  return attrs ?? NO_ATTRIBUTES;
}

function decoderFor(head: Buffer): TextDecoder {
  const declared = /^(?:\uFEFF|\xEF\xBB\xBF)?<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head.toString('latin1'));
  const label = declared ? declared[1].toLowerCase() : 'utf-8';
  try {
    return new TextDecoder(label, { fatal: true });
  } catch {
    throw new BankFileRejectedError(`the XML declares the encoding "${declared?.[1]}", which is not supported`);
  }
}

function decode(decoder: TextDecoder, bytes: Buffer, stream: boolean): string {
  try {
    return decoder.decode(bytes, { stream });
  } catch {
    throw new BankFileRejectedError(`the file is not valid ${decoder.encoding} text`);
  }
}

function notWellFormed(error: unknown): Error {
  if (error instanceof BankFileRejectedError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new BankFileRejectedError(`not well-formed XML: ${message.slice(0, 200)}`);
}

import { Query, QueryResult } from 'pg';

/**
 * Every transaction's isolation level, set by its first statement. TypeORM's
 * `startTransaction(level)` sends START TRANSACTION and SET TRANSACTION ISOLATION LEVEL as two
 * round trips while the transaction holds its pooled connection; this is none of its own.
 */
export const BEGIN_TRANSACTION = 'START TRANSACTION ISOLATION LEVEL READ COMMITTED';

/** The parts of node-postgres's connection this needs (pg/lib/connection.js). */
interface PgConnection {
  parse(message: { text: string; name?: string }): void;
  bind(message: { portal?: string; statement?: string; values?: unknown[] }): void;
  execute(message: { portal?: string; rows?: number }): void;
  stream: { cork?: () => void; uncork?: () => void };
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
}

/** node-postgres's Query, with the members its client and this wrapper use. */
interface PgQuery {
  name?: string;
  text: string;
  _result: unknown;
  submit(connection: PgConnection): Error | null | undefined;
  handleRowDescription(message: unknown): void;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: PgConnection): void;
  handleEmptyQuery(connection: PgConnection): void;
  handlePortalSuspended(connection: PgConnection): void;
  handleError(error: Error, connection: PgConnection): void;
  handleReadyForQuery(connection: PgConnection): void;
  handleCopyInResponse(connection: PgConnection): void;
  handleCopyData(message: unknown, connection: PgConnection): void;
}

/**
 * A transaction's first statement sent in one write with the statement that opens the transaction:
 * BEGIN's Parse, Bind and Execute (extended protocol, no Sync), then the statement's own Parse
 * (when the connection has not prepared it), Bind, Describe, Execute and Sync. The server runs
 * them in order and answers with one ReadyForQuery, so node-postgres's client, which expects one
 * per query, sees one query: this object (a "submittable"). BEGIN's own answers are consumed
 * here; everything after is the statement's, handed to a plain pg Query.
 *
 * If BEGIN fails the server skips the statement (up to the Sync) and the error is the query's; if
 * the statement fails the transaction is open and aborted, as if BEGIN had been a round trip of
 * its own, and the caller rolls it back. One round trip fewer per transaction.
 */
export class BeginWithStatement {
  private begun = false;
  private readonly query: PgQuery;
  private parsedBefore = false;
  callback?: (error: Error | null, result?: QueryResult) => void;
  readonly done: Promise<QueryResult>;

  constructor(
    /** the statement that opens the transaction (public: SQL traces list it before the statement) */
    readonly begin: string,
    private readonly statement: { name: string; text: string; values: unknown[] },
  ) {
    let settle!: (error: Error | null, result?: QueryResult) => void;
    this.done = new Promise<QueryResult>((resolve, reject) => {
      settle = (error, result) => (error ? reject(error) : resolve(result!));
    });
    this.query = new Query({
      ...statement,
      callback: (error: Error | null, result: QueryResult) => {
        settle(error, result);
        this.callback?.(error, result);
      },
    } as never) as unknown as PgQuery;
  }

  /**
   * The client records a named statement as prepared on ParseComplete (by `name` and `text`), and
   * forgets it on an error: BEGIN's ParseComplete comes first and must not count for the statement.
   */
  get name(): string | undefined {
    return this.begun ? this.query.name : undefined;
  }

  get text(): string {
    return this.query.text;
  }

  /** The statement's parameters (for traces and tests). */
  get values(): unknown[] {
    return this.statement.values;
  }

  /** The client sets its type parsers on the result. */
  get _result(): unknown {
    return this.query._result;
  }

  submit(connection: PgConnection): Error | null {
    const name = this.query.name!;
    // The statement's own refusals (pg Query.submit) before anything is written.
    const previous = connection.parsedStatements[name] ?? connection.submittedNamedStatements[name];
    if (previous !== undefined && previous !== this.query.text) return new Error(`Prepared statements must be unique - '${name}' was used for a different statement`);
    this.parsedBefore = connection.parsedStatements[name] !== undefined || connection.submittedNamedStatements[name] !== undefined;
    connection.stream.cork?.();
    try {
      connection.parse({ text: this.begin });
      connection.bind({ values: [] });
      connection.execute({ rows: 0 });
      return this.query.submit(connection) ?? null;
    } finally {
      connection.stream.uncork?.();
    }
  }

  handleCommandComplete(message: unknown, connection: PgConnection): void {
    if (!this.begun) {
      this.begun = true;
      return;
    }
    this.query.handleCommandComplete(message, connection);
  }

  handleError(error: Error, connection: PgConnection): void {
    // BEGIN failed: the server skipped the statement's Parse too.
    if (!this.begun && !this.parsedBefore) delete connection.submittedNamedStatements[this.query.name!];
    this.query.handleError(error, connection);
  }

  handleRowDescription(message: unknown): void {
    this.query.handleRowDescription(message);
  }

  handleDataRow(message: unknown): void {
    this.query.handleDataRow(message);
  }

  handleEmptyQuery(connection: PgConnection): void {
    this.query.handleEmptyQuery(connection);
  }

  handlePortalSuspended(connection: PgConnection): void {
    this.query.handlePortalSuspended(connection);
  }

  handleReadyForQuery(connection: PgConnection): void {
    this.query.handleReadyForQuery(connection);
  }

  handleCopyInResponse(connection: PgConnection): void {
    this.query.handleCopyInResponse(connection);
  }

  handleCopyData(message: unknown, connection: PgConnection): void {
    this.query.handleCopyData(message, connection);
  }
}

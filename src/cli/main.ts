import { CliCommand, parseArgs, USAGE, UsageError } from './args';

/**
 * Provisioning CLI (`npm run -s cli -- ...`). Arguments are checked before anything heavy loads,
 * so --help and usage errors answer at once; commands run in ./commands. Results go to
 * stdout (one JSON object with --json), progress and errors to stderr, one line each.
 * Exit codes: 0 success, 1 the command failed, 2 usage error.
 */
const out = (text: string) => process.stdout.write(`${text}\n`);
const progress = (text: string) => process.stderr.write(`${text}\n`);

async function run(argv: string[]): Promise<number> {
  let command: CliCommand;
  try {
    command = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    progress(`error: ${error.message} (see --help)`);
    return 2;
  }
  if (command.kind === 'help') {
    out(USAGE);
    return 0;
  }
  // Loaded only now (Nest, TypeORM, pg): a synchronous require, as dynamic import() stays ESM under node16.
  const { runCommand } = require('./commands') as typeof import('./commands');
  await runCommand(command, out, progress);
  return 0;
}

/** One line, no stack: a domain error's message as is, anything else by its message. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim() || 'unexpected error';
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    progress(`error: ${describe(error)}`);
    process.exit(1);
  },
);

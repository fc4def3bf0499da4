import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/**
 * The TypeScript example in docs/clients.md compiles, strict, against the client and its generated
 * types, exactly as a user would write it (no casts): a renamed field or path fails here.
 */
const ROOT = join(__dirname, '..', '..', '..');

it('the TypeScript example of docs/clients.md type-checks against clients/typescript (strict)', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'clients.md'), 'utf8');
  const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  expect(blocks).toHaveLength(1);
  const lines = blocks[0].split('\n');
  const imports = lines.filter((l) => l.startsWith('import '));
  const body = lines.filter((l) => !l.startsWith('import '));
  const source = [
    ...imports.map((l) => l.replace("'@receivables/client'", `'${join(ROOT, 'clients', 'typescript', 'src', 'index').replace(/\\/g, '/')}'`)),
    // What a webhook handler has: the request's headers and the raw body.
    'export async function example(request: { headers: Record<string, string> }, rawBody: string): Promise<unknown> {',
    ...body,
    '  return [statement, event];',
    '}',
  ].join('\n');
  const file = join(ROOT, 'clients', 'typescript', 'docs-example.ts');
  const host = ts.createCompilerHost({});
  const original = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => (name === file ? ts.createSourceFile(name, source, version) : original(name, version, ...rest));
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.fileExists = ((exists) => (name: string) => name === file || exists(name))(host.fileExists.bind(host));
  const program = ts.createProgram(
    [file],
    { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, types: ['node'], skipLibCheck: true, noUnusedLocals: false },
    host,
  );
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n') + (d.file && d.start !== undefined ? ` (line ${d.file.getLineAndCharacterOfPosition(d.start).line + 1} of the wrapped example)` : ''));
  expect(diagnostics).toEqual([]);
});

// Prints the text of the PDF read from stdin as JSON: {"pages": ["...", ...]}, extracted by PDF.js
// (through unpdf). A separate process because PDF.js is an ES module loaded with import(), which
// jest's CommonJS sandbox cannot do.
import { extractText, getDocumentProxy } from 'unpdf';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const pdf = await getDocumentProxy(new Uint8Array(Buffer.concat(chunks)));
const { text } = await extractText(pdf, { mergePages: false });
process.stdout.write(JSON.stringify({ pages: text }));

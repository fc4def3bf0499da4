import { execFile } from 'node:child_process';
import { join } from 'node:path';

/** The text of each page of a PDF, as a PDF reader extracts it (PDF.js, see pdf-text-worker.mjs). */
export function pdfPages(pdf: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [join(__dirname, 'pdf-text-worker.mjs')], { maxBuffer: 256 * 1024 * 1024, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`PDF text extraction failed: ${stderr || error.message}`));
      resolve((JSON.parse(stdout) as { pages: string[] }).pages);
    });
    child.stdin!.end(pdf);
  });
}

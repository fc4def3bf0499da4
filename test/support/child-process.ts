import { execFile } from 'node:child_process';

export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a compiled entry point (`dist/cli/main.js`) with node and collects its output; never rejects. */
export function runNode(script: string, args: string[], env: Record<string, string | undefined>, timeoutMs = 110_000): Promise<ProcessResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { env: { ...process.env, ...env }, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

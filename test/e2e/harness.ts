// Test support: a server on port 0 in its own temp home, an HTTPS client that trusts its CA, and a
// TokenCredential that gets tokens from the server's /adfs/oauth2/token as any SDK client would.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server/server.js';

export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'aksemu-test-'));
}

export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}

export interface TestServer extends RunningServer {
  logLines: string[];
}

/** A server on a free port; its log lines are collected instead of printed. */
export async function startTestServer(options: Partial<ServerOptions> & { home: string }): Promise<TestServer> {
  const logLines: string[] = [];
  const server = await startServer({ port: 0, log: (line) => logLines.push(line), ...options });
  return Object.assign(server, { logLines });
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** One HTTPS request that trusts the server's CA. */
export function https(
  server: Pick<RunningServer, 'url' | 'caPem'>,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, headers: options.headers, ca: server.caPem }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

export const ARM_SCOPE = 'https://management.core.windows.net//.default';

/** The client-credentials token request every SDK and az make. */
export async function fetchToken(server: RunningServer, scope = ARM_SCOPE): Promise<{ token: string; expiresIn: number }> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: server.identity.clientId,
    client_secret: server.identity.clientSecret,
    scope,
  });
  const res = await https(server, 'POST', '/adfs/oauth2/token', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
  return { token: res.json.access_token as string, expiresIn: res.json.expires_in as number };
}

/** A minimal TokenCredential backed by the emulator's token endpoint. */
export class EmulatorCredential implements TokenCredential {
  constructor(private readonly server: RunningServer) {}

  async getToken(scopes: string | string[]): Promise<AccessToken> {
    const scope = Array.isArray(scopes) ? scopes[0]! : scopes;
    const { token, expiresIn } = await fetchToken(this.server, scope);
    return { token, expiresOnTimestamp: Date.now() + expiresIn * 1000 };
  }
}

/** Authorization header for raw requests. */
export async function bearer(server: RunningServer): Promise<Record<string, string>> {
  return { authorization: `Bearer ${(await fetchToken(server)).token}` };
}

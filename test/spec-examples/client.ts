// Raw ARM requests as a client sends them (bearer token, JSON body), and a long-running operation followed to its
// end as the SDKs' pollers do: Azure-AsyncOperation until a terminal status, else Location until it stops saying 202.
import { bearer, https, type HttpResult, type TestServer } from '../e2e/harness.js';

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);
/** How long an operation may run before the suite calls it stuck (far above what aksemu needs, for loaded machines). */
const MAX_WAIT_MS = 30_000;

export class ArmClient {
  private headers: Record<string, string> = {};

  constructor(readonly server: TestServer) {}

  async signIn(): Promise<void> {
    this.headers = { ...(await bearer(this.server)), 'content-type': 'application/json' };
  }

  send(method: string, path: string, apiVersion: string, body?: unknown): Promise<HttpResult> {
    const sep = path.includes('?') ? '&' : '?';
    return https(this.server, method, `${path}${sep}api-version=${encodeURIComponent(apiVersion)}`, {
      headers: this.headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  private get(url: string): Promise<HttpResult> {
    const u = new URL(url);
    return https(this.server, 'GET', `${u.pathname}${u.search}`, { headers: this.headers });
  }

  /** Follows res's polling headers; returns the operation's end: its status body, or the Location's final answer. */
  async settle(res: HttpResult): Promise<{ failed?: string; result?: HttpResult }> {
    const header = (name: string) => {
      const v = res.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    };
    const asyncUrl = header('Azure-AsyncOperation');
    const location = header('Location');
    const deadline = Date.now() + MAX_WAIT_MS;
    if (asyncUrl) {
      for (;;) {
        if (Date.now() > deadline) return { failed: 'operation still InProgress after 30 s' };
        const status = await this.get(asyncUrl);
        const state = String(status.json?.status ?? '').toLowerCase();
        if (TERMINAL.has(state)) {
          if (state !== 'succeeded')
            return { failed: `operation ${status.json.status}: ${status.json.error?.code ?? ''} ${status.json.error?.message ?? ''}`.trim() };
          break;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    if (location && res.status === 202) {
      for (;;) {
        if (Date.now() > deadline) return { failed: 'operation still answering 202 after 30 s' };
        const result = await this.get(location);
        if (result.status !== 202) return { result };
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    return {};
  }
}

/** "409 Code: message" of an ARM error answer, on one line. */
export function errorLine(res: HttpResult): string {
  const e = res.json?.error;
  return `${res.status} ${e?.code ?? ''}: ${String(e?.message ?? res.text)
    .split('\n')[0]!
    .slice(0, 160)}`;
}

// ARM requests as az's SDKs make them: bearer token, api-version, the headers az sends (docs/clients.md §2.1),
// JSON bodies, and the status codes each operation accepts (anything else is an HttpResponseError).
import { randomUUID } from 'node:crypto';
import type { Endpoint } from './endpoint.js';
import { AzCliError, HttpResponseError } from './errors.js';
import { TokenSource } from './token.js';
import type { HttpResponse, Transport } from './transport.js';

export interface ArmResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  text: string;
}

export interface ArmRequest {
  method: 'GET' | 'HEAD' | 'PUT' | 'PATCH' | 'DELETE' | 'POST';
  /** A path under the server (/subscriptions/…) or an absolute URL the server handed out. */
  path: string;
  apiVersion?: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Status codes the SDK operation accepts. */
  accept: number[];
}

/** The reason phrases azure-core puts in "Operation returned an invalid status '…'". */
const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  500: 'Internal Server Error',
};

interface InvocationHeaders {
  /** e.g. "aks create" */
  commandName: string;
  /** The flags as typed, e.g. "--location --resource-group --name" */
  parameterSetName: string;
}

export class ArmClient {
  private readonly tokens: TokenSource;
  /** One id for every request of the command, as az sends on the polls of one LRO. */
  readonly clientRequestId = randomUUID();

  constructor(
    readonly endpoint: Endpoint,
    readonly subscriptionId: string,
    private readonly transport: Transport,
    private readonly invocation: InvocationHeaders,
  ) {
    this.tokens = new TokenSource(endpoint, transport);
  }

  url(path: string, apiVersion?: string, query: Record<string, string> = {}): string {
    const base = /^https?:\/\//i.test(path) ? path : `${this.endpoint.url.replace(/\/$/, '')}${path}`;
    const u = new URL(base);
    if (apiVersion !== undefined && !u.searchParams.has('api-version')) u.searchParams.set('api-version', apiVersion);
    for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
    return u.toString();
  }

  /** Starts getting the token before the first request needs it; that request reports a failure. */
  prefetchToken(): void {
    this.tokens.token().catch(() => undefined);
  }

  async raw(method: string, url: string, body?: unknown): Promise<ArmResponse> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${await this.tokens.token()}`,
      'user-agent': 'AZURECLI/2.45.0 (aksemu)',
      'x-ms-client-request-id': this.clientRequestId,
      commandname: this.invocation.commandName,
      parametersetname: this.invocation.parameterSetName,
    };
    let text: string | undefined;
    if (body !== undefined) {
      text = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    let res: HttpResponse;
    try {
      res = await this.transport.send({ method, url, headers, ...(text === undefined ? {} : { body: text }) });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new AzCliError(`Cannot reach the aksemu server at ${this.endpoint.url}: ${reason}. Is 'aksemu start' running?`);
    }
    let parsed: unknown;
    try {
      parsed = res.text === '' ? undefined : JSON.parse(res.text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text: res.text };
  }

  async send(req: ArmRequest): Promise<ArmResponse> {
    const res = await this.raw(req.method, this.url(req.path, req.apiVersion, req.query), req.body);
    if (!req.accept.includes(res.status)) throw responseError(res);
    return res;
  }
}

export function responseError(res: ArmResponse): HttpResponseError {
  return new HttpResponseError(res.status, res.body, res.text, REASONS[res.status] ?? String(res.status));
}

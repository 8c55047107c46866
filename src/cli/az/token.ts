// Client-credentials tokens from the server's ADFS-style token endpoint, as MSAL gets them for az;
// one per run (az reuses its cached token the same way).
import type { Endpoint } from './endpoint.js';
import { AzCliError } from './errors.js';
import type { Transport } from './transport.js';

export class TokenSource {
  private cached: Promise<string> | undefined;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly transport: Transport,
  ) {}

  token(): Promise<string> {
    this.cached ??= this.fetch();
    return this.cached;
  }

  private async fetch(): Promise<string> {
    const resource = this.endpoint.activeDirectoryResourceId ?? 'https://management.core.windows.net/';
    const form = new URLSearchParams({
      client_id: this.endpoint.clientId,
      grant_type: 'client_credentials',
      client_secret: this.endpoint.clientSecret,
      scope: `${resource}/.default`,
    });
    const res = await this.transport.send({
      method: 'POST',
      url: this.endpoint.tokenEndpoint,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    });
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(res.text) as Record<string, unknown>;
    } catch {
      // reported below
    }
    if (res.status !== 200 || typeof body['access_token'] !== 'string') {
      // az prints MSAL's error_description and asks for a new login.
      const description = typeof body['error_description'] === 'string' ? body['error_description'] : `token endpoint answered ${res.status}`;
      throw new AzCliError(`${description}\nInteractive authentication is needed. Please run:\naz login`);
    }
    return body['access_token'];
  }
}

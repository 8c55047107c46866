// Valid ARM calls for setting the stage and for the final checks (not fuzzed): a token, JSON in and out,
// and waiting for long-running operations through the Azure-AsyncOperation URL the server handed out.
import type { FuzzClient, WireResponse } from './client.js';
import { parseJson } from './oracle.js';

export interface ArmReply {
  status: number;
  json: any;
  res: WireResponse;
}

export async function armToken(client: FuzzClient, identity: { clientId: string; clientSecret: string }): Promise<string> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: identity.clientId,
    client_secret: identity.clientSecret,
    scope: 'https://management.core.windows.net//.default',
  });
  const res = await client.send({
    method: 'POST',
    path: '/adfs/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const json = parseJson(res.text) as { access_token?: string } | undefined;
  if (res.status !== 200 || !json?.access_token) throw new Error(`token request failed: ${res.outcome} ${res.status} ${res.text.slice(0, 200)}`);
  return json.access_token;
}

export async function armCall(client: FuzzClient, token: string | undefined, method: string, path: string, body?: unknown): Promise<ArmReply> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await client.send({ method, path, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, json: parseJson(res.text), res };
}

/** Polls an operation (Azure-AsyncOperation) until it ends; its final status, or 'Timeout'. */
export async function waitForOperation(client: FuzzClient, token: string, reply: ArmReply, timeoutMs = 30_000): Promise<string> {
  const url = reply.res.headers['azure-asyncoperation'];
  if (typeof url !== 'string') return reply.status < 300 ? 'Succeeded' : 'Failed';
  const path = new URL(url).pathname + new URL(url).search;
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const r = await armCall(client, token, 'GET', path);
    const status = r.json?.status;
    if (typeof status === 'string' && status !== 'InProgress' && status !== 'Running' && status !== 'Accepted') return status;
    await new Promise((res) => setTimeout(res, 25));
  }
  return 'Timeout';
}

/** PUT and wait: throws unless the resource ends Succeeded. */
export async function armPut(client: FuzzClient, token: string, path: string, body: unknown): Promise<ArmReply> {
  const reply = await armCall(client, token, 'PUT', path, body);
  if (reply.status >= 300) throw new Error(`PUT ${path} answered ${reply.status}: ${reply.res.text.slice(0, 300)}`);
  const status = await waitForOperation(client, token, reply);
  if (status !== 'Succeeded') throw new Error(`PUT ${path} ended ${status}`);
  return reply;
}

// What a fuzz run asserts and how it reports: the per-response judgement (no 5xx, no hang, no reset, every
// error in the client's envelope), the failure classes found (one entry per distinct cause, with its first
// request and seed so it can be replayed), and the run's figures.
import { HANG_MS, type WireRequest, type WireResponse } from './client.js';
import type { Mutation, Value } from './mutate.js';

export type Api = 'arm' | 'cluster';

/** A generated request and how it was made: enough to replay it and to shrink it. */
export interface Sent {
  api: Api;
  index: number;
  /** The route template or resource kind it exercises, e.g. `PUT …/virtualNetworks/{name}`. */
  template: string;
  wire: WireRequest;
  /** What the generator did, e.g. "set properties.count = 1e308". */
  labels: string[];
  /** The valid body and the edits applied to it (for shrinking); absent for bodies made otherwise. */
  base?: Value;
  mutations?: Mutation[];
  /** The request must be refused as unauthenticated (bad, expired or absent credentials). */
  expectUnauthorized?: boolean;
  /** The one status the request must get (a protected namespace's DELETE: 403; CONNECT: 405). */
  expectStatus?: number;
}

export type ViolationKind = '5xx' | 'hang' | 'reset' | 'envelope' | 'auth' | 'refusal' | 'bad-id' | 'crash' | 'pollution' | 'state' | 'restart' | 'slow';

export interface Failure {
  kind: ViolationKind;
  key: string;
  detail: string;
  count: number;
  templates: Set<string>;
  /** The first request that showed it (none for run-level checks). */
  example?: Sent;
  response?: { status: number; outcome: string; text: string; ms: number };
  /** Filled by shrinking: the smallest request found that still shows it. */
  minimal?: Sent;
}

export class Findings {
  readonly failures = new Map<string, Failure>();

  constructor(readonly seed: number) {}

  add(kind: ViolationKind, key: string, detail: string, sent?: Sent, res?: WireResponse): void {
    const fullKey = `${kind} ${key}`;
    let f = this.failures.get(fullKey);
    if (!f) {
      f = { kind, key: fullKey, detail, count: 0, templates: new Set() };
      if (sent) f.example = sent;
      if (res) f.response = { status: res.status, outcome: res.outcome, text: res.text.slice(0, 600), ms: Math.round(res.ms) };
      this.failures.set(fullKey, f);
    }
    f.count++;
    if (sent) f.templates.add(sent.template);
  }

  get ok(): boolean {
    return this.failures.size === 0;
  }

  /** The report printed on failure: seed first, then each class with its (shrunk) reproduction. */
  report(title: string): string {
    const lines = [`${title}: ${this.failures.size} failure class(es), seed ${this.seed} (replay with AKSEMU_FUZZ_SEED=${this.seed})`];
    for (const f of this.failures.values()) {
      lines.push(`- [${f.kind}] ${f.detail} ×${f.count}`);
      if (f.templates.size > 0)
        lines.push(`    routes: ${[...f.templates].slice(0, 6).join(' | ')}${f.templates.size > 6 ? ` (+${f.templates.size - 6})` : ''}`);
      const repro = f.minimal ?? f.example;
      if (repro) lines.push(`    request #${repro.index}${f.minimal ? ' (shrunk)' : ''}: ${describeSent(repro)}`);
      if (f.response) lines.push(`    answer: ${f.response.outcome} ${f.response.status} in ${f.response.ms} ms ${oneLine(f.response.text, 200)}`);
    }
    return lines.join('\n');
  }
}

function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ');
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/** A request as one readable line: method, path, interesting headers, body (shortened), the generator's edits. */
export function describeSent(s: Sent): string {
  const h = Object.entries(s.wire.headers)
    .filter(([k]) => k !== 'content-length')
    .map(([k, v]) => `${k}: ${k === 'authorization' ? redactAuth(v) : oneLine(v, 60)}`);
  const body = s.wire.body === undefined ? '' : ` body(${Buffer.byteLength(s.wire.body)} B)=${oneLine(s.wire.body.toString(), 300)}`;
  return `${s.wire.method} ${oneLine(s.wire.path, 220)}${h.length ? ` [${h.join('; ')}]` : ''}${body}${s.labels.length ? ` {${s.labels.join('; ')}}` : ''}`;
}

function redactAuth(v: string): string {
  return v.length > 40 ? `${v.slice(0, 7)}<token>` : v;
}

export interface Figures {
  requests: number;
  s2xx: number;
  s3xx: number;
  s4xx: number;
  s5xx: number;
  hangs: number;
  resets: number;
  crashes: number;
  restarts: number;
  maxMs: number;
  elapsedMs: number;
  /** The slowest answers, slowest first: where the time went. */
  slowest: Array<{ ms: number; what: string }>;
}

export function newFigures(): Figures {
  return { requests: 0, s2xx: 0, s3xx: 0, s4xx: 0, s5xx: 0, hangs: 0, resets: 0, crashes: 0, restarts: 0, maxMs: 0, elapsedMs: 0, slowest: [] };
}

export function count(fig: Figures, res: WireResponse, sent?: Sent): void {
  fig.requests++;
  if (sent && (fig.slowest.length < 8 || res.ms > fig.slowest[fig.slowest.length - 1]!.ms)) {
    fig.slowest.push({
      ms: Math.round(res.ms),
      what: `#${sent.index} ${sent.template} ${sent.labels.join('; ').slice(0, 100)} → ${res.outcome} ${res.status}`,
    });
    fig.slowest.sort((a, b) => b.ms - a.ms).splice(8);
  }
  fig.maxMs = Math.max(fig.maxMs, res.ms);
  if (res.outcome === 'timeout') fig.hangs++;
  else if (res.outcome === 'reset') fig.resets++;
  else if (res.status >= 500) fig.s5xx++;
  else if (res.status >= 400) fig.s4xx++;
  else if (res.status >= 300) fig.s3xx++;
  else fig.s2xx++;
}

export function figuresLine(name: string, f: Figures): string {
  return `${name}: ${f.requests} requests in ${(f.elapsedMs / 1000).toFixed(1)} s — 2xx ${f.s2xx}, 3xx ${f.s3xx}, 4xx ${f.s4xx}, 5xx ${f.s5xx}, hangs ${f.hangs}, resets ${f.resets}, crashes ${f.crashes}, restarts ${f.restarts}, slowest ${Math.round(f.maxMs)} ms`;
}

export function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Server-side time at which a request counts as stalling the server (it blocks every other request). */
export const STALL_MS = 3_000;

/**
 * The violations every response is checked for, whatever the API: a hang, a reset, a request that held the
 * server for seconds. serverMs is the server's own time for it (when 1 s or more): a timeout with little
 * server time only waited behind another request, which is reported as that request's stall.
 */
export function judgeTransport(findings: Findings, sent: Sent, res: WireResponse, serverMs: number | undefined): boolean {
  const what = `${sent.template} (${sent.labels.join('; ') || 'valid request'})`;
  if (serverMs !== undefined && serverMs >= STALL_MS) {
    findings.add('hang', `stall ${sent.template} ${sent.labels[0] ?? ''}`, `held the server ${Math.round(serverMs)} ms: ${what}`, sent, res);
  } else if (res.outcome === 'timeout') {
    findings.add('hang', 'waited', `no answer within ${HANG_MS} ms, waiting behind another request (see the stalls)`, sent, res);
  }
  if (res.outcome === 'timeout') return false;
  if (res.outcome === 'reset') {
    findings.add('reset', `${sent.template} ${res.error}`, `connection failed (${res.error}) instead of an answer: ${what}`, sent, res);
    return false;
  }
  if (sent.expectStatus !== undefined && res.status !== sent.expectStatus)
    findings.add('refusal', `${sent.template} ${res.status}`, `answered ${res.status}, not ${sent.expectStatus}: ${what}`, sent, res);
  return true;
}

/** Digits, ids and quoted values out of an error message, so one cause is one class. */
export function normalizeMessage(message: string): string {
  return message
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/"[^"]{0,200}"|'[^']{0,200}'/g, '<q>')
    .replace(/\d+/g, 'N')
    .slice(0, 160);
}

/** The message and first project frame of a logged stack: the signature of one 5xx cause. */
export function stackSignature(stack: string): string {
  const lines = stack.split('\n');
  const message = normalizeMessage(lines[0]!.replace(/^.*?failed: /, ''));
  const frame = lines.find((l) => /dist\/src\//.test(l));
  const where = frame ? frame.replace(/^.*dist\/(src\/[^:)]+):(\d+).*$/, '$1:$2').trim() : 'no project frame';
  return `${message} @ ${where}`;
}

// A container's probe as the kubelet reads it from the stored pod (user input: every field checked here, a value
// of the wrong type is the API's default or makes the probe error, never a crash): its handler (httpGet,
// tcpSocket, grpc, exec), its port resolved as pkg/kubelet/prober/prober.go extractPort does (a number, a
// container port's name, or a number written as text), and its timing (SetDefaults_Probe: timeout 1 s, period
// 10 s, thresholds 1 and 3; the apiserver's validation keeps them at least 1, clamped here the same way).
import type { Container } from '../apimachinery/types.js';

export type ProbeType = 'Liveness' | 'Readiness' | 'Startup';

const PROBE_FIELDS: Record<ProbeType, string> = { Liveness: 'livenessProbe', Readiness: 'readinessProbe', Startup: 'startupProbe' };

export type ProbeHandler =
  | { kind: 'http'; scheme: 'http' | 'https'; host: string; port: PortRef; path: string; headers: Array<[string, string]> }
  | { kind: 'tcp'; host: string; port: PortRef }
  | { kind: 'grpc'; port: PortRef; service: string }
  | { kind: 'exec'; command: string[] }
  /** No handler the kubelet knows: every run errors (`missing probe handler`). */
  | { kind: 'none' };

/** The port as written: resolved against the container when the probe runs. */
type PortRef = number | string;

export interface ProbeSpec {
  handler: ProbeHandler;
  initialDelayMs: number;
  periodMs: number;
  timeoutMs: number;
  successThreshold: number;
  failureThreshold: number;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown, d = ''): string => (typeof v === 'string' ? v : d);

/** Whole seconds at least `min` (the API's bounds), the default when missing or not a number; at most a day. */
function seconds(v: unknown, d: number, min: number): number {
  const n = typeof v === 'number' && Number.isFinite(v) ? Math.floor(v) : d;
  return Math.min(86_400, Math.max(min, n));
}

function portRef(v: unknown): PortRef {
  return typeof v === 'number' || typeof v === 'string' ? v : '';
}

function handlerOf(p: Obj): ProbeHandler {
  const http = obj(p['httpGet']);
  if (http) {
    const headers = (Array.isArray(http['httpHeaders']) ? http['httpHeaders'] : [])
      .map(obj)
      .filter((h): h is Obj => h !== undefined && typeof h['name'] === 'string' && typeof h['value'] === 'string')
      .slice(0, 64)
      .map((h) => [str(h['name']), str(h['value'])] as [string, string]);
    return {
      kind: 'http',
      scheme: str(http['scheme']).toLowerCase() === 'https' ? 'https' : 'http',
      host: str(http['host']),
      port: portRef(http['port']),
      path: str(http['path']).slice(0, 4096),
      headers,
    };
  }
  const tcp = obj(p['tcpSocket']);
  if (tcp) return { kind: 'tcp', host: str(tcp['host']), port: portRef(tcp['port']) };
  const grpc = obj(p['grpc']);
  if (grpc) return { kind: 'grpc', port: portRef(grpc['port']), service: str(grpc['service']) };
  const exec = obj(p['exec']);
  if (exec) return { kind: 'exec', command: (Array.isArray(exec['command']) ? exec['command'] : []).map((a) => String(a)).slice(0, 1024) };
  return { kind: 'none' };
}

/** The container's probe of that type, or undefined when it has none. */
export function probeSpecOf(container: Container, type: ProbeType): ProbeSpec | undefined {
  const p = obj(container[PROBE_FIELDS[type]]);
  if (!p) return undefined;
  return {
    handler: handlerOf(p),
    initialDelayMs: seconds(p['initialDelaySeconds'], 0, 0) * 1000,
    periodMs: seconds(p['periodSeconds'], 10, 1) * 1000,
    timeoutMs: seconds(p['timeoutSeconds'], 1, 1) * 1000,
    // Liveness and startup probes must have successThreshold 1 (the apiserver refuses others).
    successThreshold: type === 'Readiness' ? seconds(p['successThreshold'], 1, 1) : 1,
    failureThreshold: seconds(p['failureThreshold'], 3, 1),
  };
}

/** extractPort: the port number, or the error text the kubelet's prober gives. */
export function resolvePort(port: PortRef, container: Container): number | string {
  let n: number;
  if (typeof port === 'number') n = port;
  else {
    const named = (container.ports ?? []).find((p) => p?.name === port);
    if (named) n = Number(named.containerPort);
    else if (/^[+-]?\d+$/.test(port)) n = Number(port);
    else return `strconv.Atoi: parsing ${JSON.stringify(port)}: invalid syntax`;
  }
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : `invalid port number: ${n}`;
}

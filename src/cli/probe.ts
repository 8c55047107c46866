// `aksemu probe --from pod/NS/NAME|node/NAME|vm/NAME|internet|controlplane --to IP:PORT|svc/NS/NAME[:PORT]`: asks the
// running server's data plane to connect over TCP and prints what the far side saw; for a Service (by name, its
// ClusterIP:PORT or a NODEIP:NODEPORT) also the backend pod that answered. Talks to the server as `aksemu az`
// does (endpoint.json, a client-credentials token) on aksemu's own ARM route; errors are ARM's, printed
// as az prints them. Exit 0 when it connected, 1 when not (or on an error), 2 for unusable flags.
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { DATAPLANE_API_VERSION, PROBE_PATH } from '../dataplane/provider.js';
import type { ProbeRequest, ProbeResult } from '../dataplane/dataplane.js';
import { IpAddress } from '../net/ip.js';
import { ArmClient } from './az/arm-client.js';
import { readEndpoint, resolveHome } from './az/endpoint.js';
import { AzCliError } from './az/errors.js';
import { HttpsTransport } from './az/transport.js';

type From = ProbeRequest['from'];

export function parseFrom(value: string): From {
  if (value === 'internet') return { kind: 'internet' };
  if (value === 'controlplane') return { kind: 'controlplane' };
  const parts = value.split('/');
  if (parts[0] === 'pod' && parts.length === 3 && parts[1] && parts[2]) return { kind: 'pod', namespace: parts[1], name: parts[2] };
  if ((parts[0] === 'node' || parts[0] === 'vm') && parts.length === 2 && parts[1]) return { kind: parts[0], name: parts[1] };
  throw new InvalidArgumentError('expected pod/NAMESPACE/NAME, node/NAME, vm/NAME, internet or controlplane');
}

type To = ProbeRequest['to'] | { service: { namespace: string; name: string; port?: string } };

export function parseTo(value: string): To {
  const svc = /^svc\/([a-z0-9][-a-z0-9.]*)\/([a-z0-9][-a-z0-9.]*)(?::([a-z0-9-]{1,63}))?$/.exec(value);
  if (svc) return { service: { namespace: svc[1]!, name: svc[2]!, ...(svc[3] ? { port: svc[3] } : {}) } };
  const match = /^([^:]+):(\d{1,5})$/.exec(value);
  const ip = match ? IpAddress.tryParse(match[1]!) : undefined;
  const port = match ? Number(match[2]) : NaN;
  if (!ip || ip.family !== 4 || port < 1 || port > 65535)
    throw new InvalidArgumentError('expected IPv4:PORT (e.g. 10.224.0.4:8080) or svc/NAMESPACE/NAME[:PORT]');
  return { ip: ip.toString(), port };
}

function parseTimeout(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1 || ms > 60_000) throw new InvalidArgumentError('expected milliseconds, 1-60000');
  return ms;
}

interface ProbeOptions {
  from: From;
  to: To;
  resourceGroup?: string;
  name?: string;
  output: 'text' | 'json';
  home?: string;
  timeout?: number;
}

interface ProbeIO {
  env: NodeJS.ProcessEnv;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

export async function runProbe(opts: ProbeOptions, io: ProbeIO): Promise<number> {
  try {
    const inCluster = opts.from.kind === 'pod' || opts.from.kind === 'controlplane';
    if (inCluster && (!opts.resourceGroup || !opts.name)) {
      io.stderr.write(`aksemu probe: --from ${opts.from.kind === 'pod' ? 'pod/…' : 'controlplane'} needs the cluster: -g RESOURCE_GROUP -n CLUSTER\n`);
      return 2;
    }
    if ('service' in opts.to && (!opts.resourceGroup || !opts.name)) {
      io.stderr.write('aksemu probe: --to svc/… needs the cluster: -g RESOURCE_GROUP -n CLUSTER\n');
      return 2;
    }
    const endpoint = readEndpoint(resolveHome(opts.home, io.env));
    const client = new ArmClient(endpoint, endpoint.subscriptionId, new HttpsTransport(readFileSync(endpoint.caFile, 'utf8')), {
      commandName: 'probe',
      parameterSetName: '--from --to',
    });
    const from: From = { ...opts.from };
    const clusterId =
      opts.resourceGroup && opts.name
        ? `/subscriptions/${endpoint.subscriptionId}/resourceGroups/${opts.resourceGroup}/providers/Microsoft.ContainerService/managedClusters/${opts.name}`
        : undefined;
    if (inCluster) from.clusterId = clusterId;
    const to = { ...opts.to, ...(clusterId ? { clusterId } : {}) };
    const body = { from, to, ...(opts.timeout === undefined ? {} : { timeoutMs: opts.timeout }) };
    const res = await client.send({ method: 'POST', path: PROBE_PATH, apiVersion: DATAPLANE_API_VERSION, body, accept: [200] });
    const result = res.body as ProbeResult;
    if (opts.output === 'json') io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else if (result.connected) {
      const backend = result.backend ? ` (backend ${result.backend})` : '';
      io.stdout.write(`${result.seenSource ? `connected from ${result.seenSource}` : 'connected'}${backend}\n`);
    } else io.stdout.write(`failed: ${result.error ?? 'no connection'}\n`);
    return result.connected ? 0 : 1;
  } catch (err) {
    if (err instanceof AzCliError) {
      io.stderr.write(`ERROR: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

export function registerProbe(program: Command): void {
  program
    .command('probe')
    .description('Connect over TCP through the data plane; print the source address seen (and the backend of a Service)')
    .requiredOption('--from <source>', 'pod/NAMESPACE/NAME or controlplane (with -g and -n), node/NAME, vm/NAME or internet', parseFrom)
    .requiredOption('--to <target>', 'IPv4:PORT (a ClusterIP or NODEIP:NODEPORT names its backend) or svc/NAMESPACE/NAME[:PORT]', parseTo)
    .option('-g, --resource-group <group>', "the pod's or Service's cluster: its resource group")
    .option('-n, --name <cluster>', "the pod's or Service's cluster: its name")
    .addOption(new Option('-o, --output <format>', 'text or json').choices(['text', 'json']).default('text'))
    .option('--timeout <ms>', 'give up after this many milliseconds (default 5000)', parseTimeout)
    .option('--home <dir>', 'aksemu home with endpoint.json (default: $AKSEMU_HOME or ~/.aksemu)')
    .action(async (opts: ProbeOptions) => {
      process.exitCode = await runProbe(opts, { env: process.env, stdout: process.stdout, stderr: process.stderr });
    });
}

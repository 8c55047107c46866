// az aks get-credentials: fetch the cluster's kubeconfig from ARM (listClusterUserCredential, or
// listClusterAdminCredential with --admin) and merge it into a kubeconfig file as az does (docs/clients.md §3.6).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname } from 'node:path';
import { API } from '../api-versions.js';
import { flag, str } from '../args.js';
import type { CommandDef } from '../command.js';
import { AzCliError } from '../errors.js';
import { NAME, RESOURCE_GROUP } from './common.js';
import { clusterPath } from './aks.js';

type Named = { name: string; [k: string]: unknown };
interface KubeConfig {
  apiVersion?: string;
  kind?: string;
  clusters?: Named[];
  contexts?: Named[];
  users?: Named[];
  'current-context'?: string;
  preferences?: unknown;
}

/** az's default: the first file of $KUBECONFIG, else ~/.kube/config. */
function defaultFile(): string {
  const fromEnv = process.env['KUBECONFIG']?.split(delimiter).find((p) => p !== '');
  return fromEnv ?? `${homedir()}/.kube/config`;
}

/** Adds `addition`'s entries; an entry of the same name that differs needs --overwrite-existing. */
function mergeKubeconfig(existing: KubeConfig, addition: KubeConfig, overwrite: boolean): KubeConfig {
  const out: KubeConfig = { apiVersion: 'v1', kind: 'Config', preferences: {}, ...existing };
  for (const key of ['clusters', 'contexts', 'users'] as const) {
    const merged = [...(out[key] ?? [])];
    for (const entry of addition[key] ?? []) {
      const at = merged.findIndex((e) => e.name === entry.name);
      if (at < 0) merged.push(entry);
      else if (JSON.stringify(merged[at]) !== JSON.stringify(entry)) {
        if (!overwrite) throw new AzCliError(`A different object named ${entry.name} already exists in your kubeconfig file.`);
        merged[at] = entry;
      }
    }
    out[key] = merged;
  }
  if (addition['current-context']) out['current-context'] = addition['current-context'];
  return out;
}

export const credentialCommands: CommandDef[] = [
  {
    name: 'aks get-credentials',
    help: 'Get access credentials for a managed Kubernetes cluster.',
    args: [
      RESOURCE_GROUP,
      { ...NAME, help: 'Name of the managed cluster' },
      { dest: 'admin', options: ['--admin', '-a'], type: 'flag', help: 'Get cluster administrator credentials' },
      { dest: 'file', options: ['--file', '-f'], help: "Kubeconfig file to update; '-' prints the YAML" },
      { dest: 'overwriteExisting', options: ['--overwrite-existing'], type: 'flag', help: 'Overwrite an entry of the same name' },
    ],
    async run(ctx, args) {
      const action = flag(args, 'admin') ? 'listClusterAdminCredential' : 'listClusterUserCredential';
      const res = await ctx.client().send({
        method: 'POST',
        path: `${clusterPath(ctx, str(args, 'resourceGroup')!, str(args, 'name')!)}/${action}`,
        apiVersion: API.containerService,
        accept: [200],
      });
      const kubeconfigs = (res.body as { kubeconfigs?: Array<{ value?: string }> } | undefined)?.kubeconfigs;
      if (!kubeconfigs) throw new AzCliError('No Kubernetes credentials found.');
      if (kubeconfigs.length === 0 || !kubeconfigs[0]!.value) throw new AzCliError('Fail to find kubeconfig file.');
      const yaml = Buffer.from(kubeconfigs[0]!.value, 'base64').toString('utf8');
      const file = str(args, 'file') ?? defaultFile();
      if (file === '-') {
        process.stdout.write(yaml.endsWith('\n') ? yaml : `${yaml}\n`);
        return undefined;
      }
      // Loaded here: the other aks commands need no YAML (~40 ms of a process start).
      const { default: YAML } = await import('yaml');
      const addition = YAML.parse(yaml) as KubeConfig;
      const existing = existsSync(file) ? ((YAML.parse(readFileSync(file, 'utf8')) as KubeConfig | null) ?? {}) : {};
      const merged = mergeKubeconfig(existing, addition, flag(args, 'overwriteExisting'));
      mkdirSync(dirname(file), { recursive: true });
      // Kubeconfigs hold credentials: owner-only, as az writes them.
      writeFileSync(file, YAML.stringify(merged), { mode: 0o600 });
      chmodSync(file, 0o600);
      process.stderr.write(`Merged "${addition['current-context'] ?? 'UNKNOWN'}" as current context in ${file}\n`);
      return undefined;
    },
  },
];

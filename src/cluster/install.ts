// Installing a CNI on a cluster's nodes from outside (what `aksemu cni install` does): validate the network
// config as the runtime will load it, then drop it into every node's conf dir (write + rename, which
// containerd's watcher sees as one event) and into the cluster's own cni/net.d so that nodes added later
// start with it. The kubelets notice within a moment and the nodes turn Ready. With `node`, only that node gets it
// (a conflist naming one node's own pod range, as a CNI's agent writes per node); nodes added later do not.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CNI_EXTENSIONS, parseNetworkConfig, type LoadedNetwork } from '../cni/confdir.js';
import { clusterCniDir, clusterDir, cniInstallRecord, nodeConfDir, nodesDir } from './nodefs/paths.js';

export interface CniInstallRequest {
  home: string;
  resourceGroup: string;
  cluster: string;
  conflistFile: string;
  pluginDir?: string;
  /** Install on this node only (and not for nodes added later). */
  node?: string;
}

export interface CniInstallResult {
  network: LoadedNetwork;
  nodes: string[];
  /** Plugin types with no executable in pluginDir (only when a plugin dir was given). */
  missingPlugins: string[];
}

export class CniInstallError extends Error {}

function writeAtomically(dir: string, file: string, text: string): void {
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${file}.tmp-${process.pid}`);
  writeFileSync(tmp, text);
  renameSync(tmp, join(dir, file));
}

export function installCni(req: CniInstallRequest): CniInstallResult {
  const root = clusterDir(req.home, req.resourceGroup, req.cluster);
  if (!existsSync(root)) {
    throw new CniInstallError(
      `cluster '${req.cluster}' in resource group '${req.resourceGroup}' has no nodes under ${req.home} (is the server's home the same, and the cluster created?)`,
    );
  }
  const file = basename(req.conflistFile);
  if (!CNI_EXTENSIONS.some((ext) => file.endsWith(ext))) {
    throw new CniInstallError(`${file}: the runtime only loads files ending in ${CNI_EXTENSIONS.join(', ')}`);
  }
  let text: string;
  try {
    text = readFileSync(req.conflistFile, 'utf8');
  } catch (e) {
    throw new CniInstallError(`cannot read ${req.conflistFile}: ${(e as Error).message}`);
  }
  let network: LoadedNetwork;
  try {
    network = parseNetworkConfig(file, text);
  } catch (e) {
    throw new CniInstallError(`${req.conflistFile}: ${(e as Error).message}`);
  }
  let missingPlugins: string[] = [];
  if (req.pluginDir !== undefined) {
    if (!existsSync(req.pluginDir)) throw new CniInstallError(`plugin dir ${req.pluginDir} does not exist`);
    missingPlugins = [...new Set(network.types)].filter((t) => !existsSync(join(req.pluginDir!, t)));
  }
  const nodesRoot = nodesDir(req.home, req.resourceGroup, req.cluster);
  const all = existsSync(nodesRoot) ? readdirSync(nodesRoot).sort() : [];
  if (req.node !== undefined && !all.includes(req.node)) {
    throw new CniInstallError(`cluster '${req.cluster}' has no node '${req.node}' (its nodes: ${all.join(', ') || 'none'})`);
  }
  const nodes = req.node === undefined ? all : [req.node];
  if (req.node === undefined) writeAtomically(clusterCniDir(req.home, req.resourceGroup, req.cluster), file, text);
  mkdirSync(dirname(cniInstallRecord(req.home, req.resourceGroup, req.cluster)), { recursive: true });
  writeFileSync(
    cniInstallRecord(req.home, req.resourceGroup, req.cluster),
    `${JSON.stringify({ conflist: file, network: network.name, plugins: network.types, ...(req.pluginDir ? { pluginDir: req.pluginDir } : {}), installedAt: new Date().toISOString() }, null, 2)}\n`,
  );
  for (const node of nodes) writeAtomically(nodeConfDir(req.home, req.resourceGroup, req.cluster, node), file, text);
  return { network, nodes, missingPlugins };
}

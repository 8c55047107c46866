// Where a cluster's node-side files live under $AKSEMU_HOME:
//   clusters/<resource group>_<cluster>/nodes/<node>/                 the node's root: its / (node-root.ts)
//   clusters/<resource group>_<cluster>/nodes/<node>/etc/cni/net.d   one conf dir per node (the kubelet reads it)
//   clusters/<resource group>_<cluster>/cni/net.d                    what `aksemu cni install` put there; new nodes get it
//   clusters/<resource group>_<cluster>/cni/install.json             the install's record (conflist, plugin dir)
//   clusters/<resource group>_<cluster>/node-image/opt/cni/bin       the node image's plugins, shared by the nodes until one writes there
import { join, sep } from 'node:path';

export function clusterDirName(resourceGroup: string, cluster: string): string {
  return `${resourceGroup}_${cluster}`.toLowerCase();
}

export function clusterDir(home: string, resourceGroup: string, cluster: string): string {
  return join(home, 'clusters', clusterDirName(resourceGroup, cluster));
}

export function nodesDir(home: string, resourceGroup: string, cluster: string): string {
  return join(clusterDir(home, resourceGroup, cluster), 'nodes');
}

export function nodeRootDir(home: string, resourceGroup: string, cluster: string, node: string): string {
  return nodeRootIn(nodesDir(home, resourceGroup, cluster), node);
}

/**
 * A node's root under its cluster's nodes dir (nodesDir), what join gives: put together by hand when the name is one
 * plain segment, as the kubelets ask it per node and per container start (docs/performance.md §2.25).
 */
export function nodeRootIn(nodes: string, node: string): string {
  return node !== '' && node !== '.' && node !== '..' && !node.includes('/') && !node.includes(sep) ? `${nodes}${sep}${node}` : join(nodes, node);
}

export function nodeConfDir(home: string, resourceGroup: string, cluster: string, node: string): string {
  return confDirIn(nodeRootDir(home, resourceGroup, cluster, node));
}

const CONF_DIR_IN_ROOT = join('etc', 'cni', 'net.d');

/** A node's conf dir under its root (a path join gives, as nodeRootIn's are). */
export function confDirIn(root: string): string {
  return `${root}${sep}${CONF_DIR_IN_ROOT}`;
}

/** The node image's /opt/cni/bin, which a node's own links to until something writes there (node-root.ts seedNodeRoot). */
export function nodeImageCniBin(home: string, resourceGroup: string, cluster: string): string {
  return join(clusterDir(home, resourceGroup, cluster), 'node-image', 'opt', 'cni', 'bin');
}

export function clusterCniDir(home: string, resourceGroup: string, cluster: string): string {
  return join(clusterDir(home, resourceGroup, cluster), 'cni', 'net.d');
}

export function cniInstallRecord(home: string, resourceGroup: string, cluster: string): string {
  return join(clusterDir(home, resourceGroup, cluster), 'cni', 'install.json');
}

// `aksemu cni install -g G -n N --conflist F [--plugin-dir D] [--node NODE]`: bring your own CNI to a cluster's nodes by
// copying its network config into every node's /etc/cni/net.d (src/cluster/install.ts).
import type { Command } from 'commander';
import { defaultHome } from './start.js';

export function registerCni(program: Command): void {
  const cni = program.command('cni').description("Manage the CNI on an emulated cluster's nodes");
  cni
    .command('install')
    .description("Copy a CNI config into every node's /etc/cni/net.d; the nodes turn Ready")
    .requiredOption('-g, --resource-group <group>', 'resource group of the cluster')
    .requiredOption('-n, --name <cluster>', 'cluster name')
    .requiredOption('--conflist <file>', 'the network config (.conflist, .conf or .json)')
    .option('--plugin-dir <dir>', 'where the CNI plugin binaries are (checked, and recorded for the data plane)')
    .option('--node <name>', "only this node (a conflist with the node's own pod range); nodes added later do not get it")
    .option('--home <dir>', 'state directory (default: $AKSEMU_HOME or ~/.aksemu)')
    .action(async (opts: { resourceGroup: string; name: string; conflist: string; pluginDir?: string; node?: string; home?: string }) => {
      // Loaded here, not at the top: the cluster runtime's modules are not what every other command needs.
      const { CniInstallError, installCni } = await import('../cluster/install.js');
      try {
        const result = installCni({
          home: opts.home ?? defaultHome(),
          resourceGroup: opts.resourceGroup,
          cluster: opts.name,
          conflistFile: opts.conflist,
          ...(opts.pluginDir ? { pluginDir: opts.pluginDir } : {}),
          ...(opts.node ? { node: opts.node } : {}),
        });
        for (const t of result.missingPlugins) process.stderr.write(`aksemu: warning: plugin '${t}' not found in ${opts.pluginDir}\n`);
        process.stdout.write(
          `Installed CNI network '${result.network.name}' (${result.network.types.join(', ')}) on ${result.nodes.length} node(s) of ${opts.name}\n`,
        );
      } catch (e) {
        if (e instanceof CniInstallError) {
          process.stderr.write(`aksemu: ${e.message}\n`);
          process.exitCode = 1;
          return;
        }
        throw e;
      }
    });
}

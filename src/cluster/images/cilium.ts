// cilium's images in the CNI agent catalogue (catalogue.ts; program.ts says what an entry holds): the agent image
// (its init containers, the agent, the preStop hook, and the cilium-cni plugin install-plugin.sh copies to the
// host), the generic operator, and cilium-envoy. Cilium's own registry, and Microsoft's mirror of it.
import { ciliumAgent } from './cilium-agent.js';
import { buildConfig, ciliumBash, cniUninstall, envoyStarter, initContainerSh, installPlugin } from './cilium-init.js';
import { ciliumOperatorGeneric } from './cilium-operator.js';
import type { ImageSpec, Program } from './program.js';

/** `cilium-dbg` subcommands the agent pod runs (the config init container's build-config). */
const ciliumDbg: Program = async (ctx) => {
  if (ctx.argv[1] === 'build-config') return buildConfig(ctx);
  ctx.write('stderr', `aksemu cannot emulate this command: ${ctx.argv.join(' ')}\n`);
  return 127;
};

export const CILIUM_IMAGES: ImageSpec[] = [
  {
    image: /^(quay\.io\/cilium|mcr\.microsoft\.com\/oss\/cilium)\/cilium$/,
    files: { '/opt/cni/bin/cilium-cni': { plugin: 'cilium-cni' }, '/cni/loopback': { plugin: 'loopback' } },
    programs: {
      'cilium-dbg': ciliumDbg,
      'cilium-agent': ciliumAgent,
      bash: ciliumBash,
      '/init-container.sh': initContainerSh,
      '/install-plugin.sh': installPlugin,
      '/cni-uninstall.sh': cniUninstall,
    },
    // The agent programs the node's NetworkPolicy (in eBPF; here in the node's nft table).
    enforcesNetworkPolicy: [ciliumAgent],
  },
  {
    image: /^(quay\.io\/cilium|mcr\.microsoft\.com\/oss\/cilium)\/operator-generic$/,
    programs: { 'cilium-operator-generic': ciliumOperatorGeneric },
  },
  {
    image: /^(quay\.io\/cilium|mcr\.microsoft\.com\/oss\/cilium)\/cilium-envoy$/,
    programs: { '/usr/bin/cilium-envoy-starter': envoyStarter },
  },
];

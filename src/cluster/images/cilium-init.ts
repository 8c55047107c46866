// The short programs of Cilium's images: the agent pod's init containers, its preStop hook, and cilium-envoy.
//   config                   `cilium-dbg build-config`: the cilium-config ConfigMap, one file per key, into
//                            /tmp/cilium/config-map (the pod's emptyDir the agent reads with --config-dir).
//   mount-cgroup,            `bash -ec` scripts copying cilium-mount / cilium-sysctlfix to the host and running them
//   apply-sysctl-overwrites  with nsenter; mount-bpf-fs mounts bpffs: nothing for aksemu's nodes to change, so they
//   mount-bpf-fs             print what the tools print and exit 0.
//   clean-cilium-state       /init-container.sh: removes the agent's state when CILIUM_ALL_STATE is true.
//   install-cni-binaries     /install-plugin.sh (plugins/cilium-cni/install-plugin.sh): cilium-cni, and loopback
//                            when the host has none, into /host/opt/cni/bin.
//   preStop                  /cni-uninstall.sh (plugins/cilium-cni/cni-uninstall.sh): unless cni-uninstall is
//                            "true" in the config dir it says so and leaves everything; else it removes the
//                            cilium confs from /host/etc/cni/net.d.
//   cilium-envoy             /usr/bin/cilium-envoy-starter: runs until stopped.
import { CONFIG_MAP, ciliumNamespace, configMapData, DEFAULT_CONFIG_DIR, logLine, pause } from './cilium-config.js';
import type { Program, ProgramContext } from './program.js';

const HOST_CNI_BIN = '/host/opt/cni/bin';
const HOST_CNI_CONF = '/host/etc/cni/net.d';

/** `cilium-dbg build-config`: writes the ConfigMap's keys as files (pkg/option/resolver). */
export const buildConfig: Program = async (ctx) => {
  const ns = ciliumNamespace(ctx);
  logLine(ctx, 'option-resolver', 'info', 'Reading configuration from config-map', { configSource: `config-map:${ns}/${CONFIG_MAP}` });
  const data = configMapData(ctx);
  if (!data) {
    logLine(ctx, 'option-resolver', 'error', 'failed to resolve configuration', { error: `configmaps "${CONFIG_MAP}" not found` });
    return 1;
  }
  logLine(ctx, 'option-resolver', 'info', 'Got config from config source', { configSource: `config-map:${ns}/${CONFIG_MAP}` });
  const dir = ctx.argv.find((a) => a.startsWith('--dest='))?.slice('--dest='.length) ?? DEFAULT_CONFIG_DIR;
  for (const [key, value] of Object.entries(data)) {
    if (!/^[-._a-zA-Z0-9]+$/.test(key)) continue;
    ctx.files.write(`${dir}/${key}`, value);
  }
  return 0;
};

/** The `bash -c` scripts of the agent pod, told apart by the tools they run. */
const BASH_SCRIPTS: Array<{ uses: RegExp; output: string }> = [
  { uses: /cilium-mount/, output: 'level=info msg="Mounted cgroupv2 filesystem at /run/cilium/cgroupv2" subsys=cgroups\n' },
  { uses: /cilium-sysctlfix/, output: 'sysctl config up-to-date, nothing to do\n' },
  { uses: /mount -t bpf/, output: 'bpf on /sys/fs/bpf type bpf (rw,nosuid,nodev,noexec,relatime,mode=700)\n' },
  // The agent's postStart hook: no AWS CNI chains on an AKS node.
  { uses: /AWS-SNAT-CHAIN/, output: 'Done!\n' },
];

export const ciliumBash: Program = async (ctx) => {
  const script = ctx.argv.slice(1).join(' ');
  const known = BASH_SCRIPTS.find((s) => s.uses.test(script));
  if (!known) {
    ctx.write('stderr', `aksemu cannot emulate this command: ${ctx.argv.join(' ')}\n`);
    return 127;
  }
  ctx.write('stdout', known.output);
  return 0;
};

export const initContainerSh: Program = async (ctx) => {
  if (ctx.env['CILIUM_ALL_STATE'] === 'true') {
    ctx.write('stdout', 'Removing all Cilium state\n');
    ctx.files.remove('/var/run/cilium/state');
  }
  return 0;
};

/** Copies one image file into the host's bin dir, as install_cni does (cp to .name.new, then mv). */
function installCni(ctx: ProgramContext, src: string): void {
  const name = src.slice(src.lastIndexOf('/') + 1);
  const dst = `${HOST_CNI_BIN}/${name}`;
  ctx.write('stdout', `Installing ${name} to ${dst} ...\n`);
  ctx.files.installImageFile(src, dst);
  ctx.write('stdout', `Wrote ${dst}\n`);
}

export const installPlugin: Program = async (ctx) => {
  if (ctx.env['OVERWRITE_LOOPBACK'] === 'true' || !ctx.files.list(HOST_CNI_BIN).includes('loopback')) {
    try {
      installCni(ctx, '/cni/loopback');
    } catch {
      // "Don't fail hard if this fails as it is usually not required"
    }
  }
  if ((ctx.env['OVERWRITE_CILIUM'] ?? 'true') === 'true' || !ctx.files.list(HOST_CNI_BIN).includes('cilium-cni')) installCni(ctx, '/opt/cni/bin/cilium-cni');
  return 0;
};

export const cniUninstall: Program = async (ctx) => {
  if ((ctx.files.read(`${DEFAULT_CONFIG_DIR}/cni-uninstall`) ?? '') !== 'true') {
    ctx.write('stdout', 'cni-uninstall disabled, not removing CNI configuration\n');
    return 0;
  }
  if (ctx.env['CILIUM_CUSTOM_CNI_CONF'] !== 'true') {
    ctx.write('stdout', `Removing active Cilium CNI configurations from ${HOST_CNI_CONF}...\n`);
    for (const name of ctx.files.list(HOST_CNI_CONF))
      if (name.includes('cilium') && /\.(conf|conflist)$/.test(name)) ctx.files.remove(`${HOST_CNI_CONF}/${name}`);
  }
  return 0;
};

export const envoyStarter: Program = async (ctx) => {
  ctx.write('stderr', `[info][main] [external/envoy/source/server/server.cc:430] initializing epoch 0 (base id=0, hot restart version=disabled)\n`);
  ctx.write('stderr', `[info][main] [external/envoy/source/server/server.cc:1007] starting main dispatch loop\n`);
  ctx.setReady(true);
  while (!ctx.signal.aborted) await pause(ctx.signal, 60_000);
  return 0;
};

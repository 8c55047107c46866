// Can this machine run the netns data plane? Root (CAP_SYS_ADMIN for `ip netns add`, CAP_NET_ADMIN), the
// tools, and a namespace that can really be created and deleted. Returns why not, or undefined.
import { run } from './exec.js';

const TOOLS: Array<[string, string[]]> = [
  ['ip', ['-V']],
  ['nft', ['--version']],
  ['nsenter', ['--version']],
  ['sysctl', ['--version']],
];

export async function netnsUnsupportedReason(prefix: string): Promise<string | undefined> {
  if (process.platform !== 'linux') return `the netns data plane needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'the netns data plane needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN)';
  for (const [tool, args] of TOOLS) {
    try {
      const r = await run(tool, args);
      if (r.code !== 0) return `${tool} does not work: ${r.stderr.trim()}`;
    } catch {
      return `${tool} is not installed (Debian: apt-get install iproute2 nftables util-linux procps)`;
    }
  }
  const probe = `${prefix}-probe`;
  const add = await run('ip', ['netns', 'add', probe]);
  if (add.code !== 0) return `cannot create a network namespace: ${add.stderr.trim()}`;
  await run('ip', ['netns', 'del', probe]);
  return undefined;
}

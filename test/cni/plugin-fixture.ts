// A test-only entry for the protocol driver: registers a tiny plugin ("aksemu-test") beside aksemu's own and runs
// main.ts's pluginMain, as dist/src/cni/plugins/main.js does for the real registry. test/cni/plugins-main.test.ts
// installs a node wrapper pointing here and runs it through the CNI runtime.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pluginMain } from '../../src/cni/plugins/main.js';
import { type Plugin, PluginError } from '../../src/cni/plugins/plugin.js';
import { PLUGINS } from '../../src/cni/plugins/registry.js';

const testPlugin: Plugin = {
  supportedVersions: ['0.4.0', '1.0.0', '1.1.0'],
  async run(req) {
    // What the plugin saw, under the node's root (proves AKSEMU_NODE_ROOT and the parsed request).
    const log = join(req.nodeRoot, 'var', 'log', 'aksemu-test.log');
    mkdirSync(join(req.nodeRoot, 'var', 'log'), { recursive: true });
    appendFileSync(
      log,
      `${JSON.stringify({ command: req.command, containerId: req.containerId, netns: req.netns, ifName: req.ifName, args: req.args, path: req.path, addressOnly: req.addressOnly, name: req.config['name'] })}\n`,
    );
    if (req.config['fail'] === 'tryLater') throw new PluginError(11, 'no addresses yet', 'try again later');
    if (req.command !== 'ADD') return undefined;
    const ip = { address: '10.9.0.5/24', gateway: '10.9.0.1' };
    return req.addressOnly ? { ips: [ip] } : { interfaces: [{ name: req.ifName, sandbox: req.netns }], ips: [{ ...ip, interface: 0 }] };
  },
};

PLUGINS['aksemu-test'] = testPlugin;
// Only as a plugin (the runtime always sets CNI_COMMAND): node's test runner loads every file under test/ too.
if (process.env['CNI_COMMAND']) void pluginMain();

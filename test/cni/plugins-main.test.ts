// aksemu's CNI plugin protocol driver (src/cni/plugins/main.ts) and node wrapper (install.ts), end to end: a node
// wrapper is written into a temporary node root's opt/cni/bin and the CNI runtime (runtime.ts, exec.ts) runs it
// for real. The plugin is a test-only one registered by test/cni/plugin-fixture.ts.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CniError, execPlugin } from '../../src/cni/exec.js';
import { installPlugin, PLUGIN_MAIN, pluginWrapper } from '../../src/cni/plugins/install.js';
import { invoke, parseCniArgs } from '../../src/cni/plugins/main.js';
import { CniRuntime, parseNetworkList } from '../../src/cni/runtime.js';
import { pluginVersions } from '../../src/cni/version.js';

const FIXTURE = fileURLToPath(new URL('./plugin-fixture.js', import.meta.url));
// A root with a quote and a space: the wrapper must quote it for /bin/sh.
const base = mkdtempSync(join(tmpdir(), 'aksemu-plugins-'));
const nodeRoot = join(base, "node's root");
const bin = join(nodeRoot, 'opt', 'cni', 'bin');

function logLines(): Array<Record<string, unknown>> {
  return readFileSync(join(nodeRoot, 'var', 'log', 'aksemu-test.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('aksemu CNI plugins: protocol driver and node wrapper', () => {
  after(() => rmSync(base, { recursive: true, force: true }));
  const wrapper = installPlugin(nodeRoot, 'aksemu-test', FIXTURE);

  test('the wrapper is an executable script running the driver with the node root', () => {
    assert.equal(statSync(wrapper).mode & 0o777, 0o755);
    const text = readFileSync(wrapper, 'utf8');
    assert.equal(text, pluginWrapper(nodeRoot, 'aksemu-test', FIXTURE));
    assert.match(text, /^#!\/bin\/sh\nAKSEMU_NODE_ROOT='.*node'\\''s root' exec '.*' '.*plugin-fixture\.js' 'aksemu-test' "\$@"\n$/);
    assert.match(pluginWrapper('/r', 'flannel'), new RegExp(`'${PLUGIN_MAIN.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}' 'flannel'`));
  });

  test('VERSION answers the plugin supportedVersions as the spec version result', async () => {
    const info = await pluginVersions(wrapper);
    assert.deepEqual(info.supportedVersions, ['0.4.0', '1.0.0', '1.1.0']);
    const raw = JSON.parse(execFileSync(wrapper, [], { env: { CNI_COMMAND: 'VERSION' }, input: '{}', encoding: 'utf8' })) as Record<string, unknown>;
    assert.deepEqual(raw, { cniVersion: '1.1.0', supportedVersions: ['0.4.0', '1.0.0', '1.1.0'] });
  });

  test('ADD and DEL through the CNI runtime: the request as parsed, the result in the config version', async () => {
    const cni = new CniRuntime({ cacheDir: join(base, 'cache'), pluginDirs: [bin] });
    const net = parseNetworkList('testnet.conflist', JSON.stringify({ cniVersion: '1.0.0', name: 'testnet', plugins: [{ type: 'aksemu-test' }] }));
    const att = {
      containerId: 'c0ffee',
      netns: '/run/netns/none',
      ifName: 'eth0',
      pod: { namespace: 'default', name: 'web' },
      args: { AKSEMU_ADDRESS_ONLY: 'true' },
    };
    const result = await cni.add(net, att);
    assert.deepEqual(result, { cniVersion: '1.0.0', ips: [{ address: '10.9.0.5/24', gateway: '10.9.0.1' }] });
    await cni.del(net, att);
    const [add, del] = logLines().filter((l) => l['command'] !== 'VERSION');
    assert.deepEqual(add, {
      command: 'ADD',
      containerId: 'c0ffee',
      netns: '/run/netns/none',
      ifName: 'eth0',
      args: { K8S_POD_NAMESPACE: 'default', K8S_POD_NAME: 'web', K8S_POD_INFRA_CONTAINER_ID: 'c0ffee', AKSEMU_ADDRESS_ONLY: 'true', IgnoreUnknown: '1' },
      path: [bin],
      addressOnly: true,
      name: 'testnet',
    });
    assert.equal(del?.['command'], 'DEL');
  });

  test('a plugin error is the spec error object on stdout with exit status 1', async () => {
    await assert.rejects(
      execPlugin({
        command: 'ADD',
        type: 'aksemu-test',
        path: [bin],
        config: { cniVersion: '1.0.0', name: 'n', type: 'aksemu-test', fail: 'tryLater' },
        containerId: 'c1',
        netns: '/x',
        ifName: 'eth0',
      }),
      (e: unknown) =>
        e instanceof CniError &&
        e.error.code === 11 &&
        e.error.msg === 'no addresses yet' &&
        e.error.details === 'try again later' &&
        e.error.cniVersion === '1.0.0',
    );
    await assert.rejects(
      execPlugin({
        command: 'ADD',
        type: 'aksemu-test',
        path: [bin],
        config: { cniVersion: '0.3.1', name: 'n' },
        containerId: 'c1',
        netns: '/x',
        ifName: 'eth0',
      }),
      (e: unknown) => e instanceof CniError && e.error.code === 1 && e.error.msg === 'incompatible CNI versions',
    );
    await assert.rejects(
      execPlugin({ command: 'ADD', type: 'aksemu-test', path: [bin], config: { cniVersion: '1.0.0', name: 'n' }, containerId: 'c1', ifName: 'eth0' }),
      (e: unknown) => e instanceof CniError && e.error.code === 4 && e.error.msg === 'required env variables [CNI_NETNS] missing',
    );
  });

  test('the driver alone: unknown commands, types and CNI_ARGS', async () => {
    const run = (env: Record<string, string>, type = 'nope') => invoke({ argv: ['node', 'main.js', type], env, stdin: '{"cniVersion":"1.0.0"}' });
    assert.deepEqual(await run({ CNI_COMMAND: 'ADD' }), {
      stdout: `${JSON.stringify({ cniVersion: '1.1.0', code: 7, msg: 'aksemu has no CNI plugin "nope"' })}\n`,
      code: 1,
    });
    const out = await invoke(
      { argv: ['node', 'main.js', 'p'], env: { CNI_COMMAND: 'FROB' }, stdin: '' },
      { p: { supportedVersions: ['1.0.0'], run: async () => undefined } },
    );
    assert.equal((JSON.parse(out.stdout) as { msg: string }).msg, 'unknown CNI_COMMAND: FROB');
    assert.deepEqual(
      { ...parseCniArgs('IgnoreUnknown=1;K8S_POD_NAME=a=b;AKSEMU_ADDRESS_ONLY=true') },
      { IgnoreUnknown: '1', K8S_POD_NAME: 'a=b', AKSEMU_ADDRESS_ONLY: 'true' },
    );
    assert.equal(Object.getPrototypeOf(parseCniArgs('__proto__=x')), null);
  });

  test("the runtime runs its own plugin's wrapper in its own process, any other wrapper as a process", async () => {
    // calico's wrapper as `aksemu cni install` writes it (this Node.js, this main.js): the answer is the driver's, but
    // no process ran, so the node namespace it would have been nsentered into need not exist.
    const own = installPlugin(nodeRoot, 'calico');
    const call = { command: 'VERSION' as const, type: 'calico', path: [bin], config: { cniVersion: '1.0.0' }, hostNetns: '/nonexistent/netns' };
    const out = await execPlugin(call);
    assert.ok((out?.['supportedVersions'] as string[]).includes('1.0.0'), JSON.stringify(out));
    // The same wrapper with one byte more is someone else's: it runs as a process, and nsenter fails.
    writeFileSync(own, `${readFileSync(own, 'utf8')}\n`);
    await assert.rejects(execPlugin(call), (e: unknown) => e instanceof CniError && /plugin "calico" failed/.test(e.error.msg));
    rmSync(own);
  });
});

// The execution layer against the real iproute2 and nft in a namespace of our own: a failing batch line is
// reported with its command, other requests coalesced into the same process are unaffected, nft tables are
// replaced atomically.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inNetns, IpBatcher, mayFail, nftLoad, nftTable, run, sysctl } from '../../src/dataplane/netns/exec.js';
import { rootSnapshot, skipReason, testPrefix, assertNoneLeft } from './harness.js';

const prefix = testPrefix();
const skip = await skipReason(prefix);
const ns = `${prefix}-x`;

async function inNs(file: string, ...args: string[]): Promise<string> {
  const [f, a] = inNetns(ns, file, args);
  return (await run(f, a)).stdout;
}

describe('netns execution layer', { skip }, () => {
  const ip = new IpBatcher();
  let root: Record<string, string>;
  before(() => {
    root = rootSnapshot();
    return ip.batch(null, [`netns add ${ns}`]);
  });
  after(() => ip.batch(null, [mayFail(`netns del ${ns}`)]));

  it('maps "Command failed -:N" back to the failing line of the request that sent it', async () => {
    const good = ip.batch(ns, ['link add br1 type bridge', 'link set br1 up']);
    const bad = ip.batch(ns, ['link add br2 type bridge', 'addr add 10.1.0.1/24 dev nosuchdev', 'link set br2 up']);
    const tolerant = ip.batch(ns, [mayFail('link del nosuchdev'), 'link add br3 type bridge']);
    await good;
    await assert.rejects(bad, /addr add 10\.1\.0\.1\/24 dev nosuchdev: Cannot find device "nosuchdev"/);
    await tolerant;
    // -force went on past the failure: every other line ran.
    const links = await inNs('ip', '-br', 'link');
    for (const l of ['br1', 'br2', 'br3']) assert.match(links, new RegExp(`^${l} `, 'm'));
  });

  it('refuses anything but netns add|del in the root namespace', async () => {
    await assert.rejects(ip.batch(null, ['link add x type bridge']), /only netns add\|del may run in the root namespace/);
  });

  it('sets sysctls inside the namespace only', async () => {
    await sysctl(ns, { 'net.ipv4.ip_forward': 1 });
    assert.equal((await inNs('sysctl', '-n', 'net.ipv4.ip_forward')).trim(), '1');
  });

  it('replaces an nft table atomically and removes it', async () => {
    const body = (n: number) => `  chain c${n} {\n    type filter hook forward priority filter; policy accept;\n  }`;
    await nftLoad(ns, nftTable('ip', 'aksemu_test', body(1)));
    await nftLoad(ns, nftTable('ip', 'aksemu_test', body(2)));
    const listed = await inNs('nft', 'list', 'table', 'ip', 'aksemu_test');
    assert.match(listed, /chain c2/);
    assert.doesNotMatch(listed, /chain c1/);
    await nftLoad(ns, nftTable('ip', 'aksemu_test', undefined));
    assert.equal((await inNs('nft', 'list', 'tables')).trim(), '');
  });

  it('leaves the root namespace as it was', async () => {
    await ip.batch(null, [`netns del ${ns}`]);
    assertNoneLeft(prefix, root);
  });
});

// The CNI runtime against the real plugins in /usr/lib/cni and script plugins written here, in network
// namespaces made for this run (akcni<4 hex>-node, -p1, -p2): the plugins run inside the "node" namespace and put
// the pods' interfaces in the "pod" namespaces. Every namespace is deleted by name afterwards, and the host's root
// namespace (links, routes, nft ruleset) must be the same before and after.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CniError } from '../../src/cni/exec.js';
import { NodeGate } from '../../src/cni/node-gate.js';
import { CniRuntime, parseNetworkList, type Attachment, type NetworkList } from '../../src/cni/runtime.js';
import { deleteNetnsNamed } from '../dataplane/harness.js';

const SYSTEM_PLUGINS = '/usr/lib/cni';
const skip =
  process.getuid?.() !== 0
    ? 'needs root (network namespaces, real CNI plugins)'
    : !existsSync(join(SYSTEM_PLUGINS, 'bridge'))
      ? `${SYSTEM_PLUGINS}/bridge is missing (apt-get install containernetworking-plugins)`
      : false;

const prefix = `akcni${randomBytes(2).toString('hex')}`;
const NODE = `${prefix}-node`;
const POD1 = `${prefix}-p1`;
const POD2 = `${prefix}-p2`;
const netnsPath = (name: string): string => `/run/netns/${name}`;

function sh(file: string, args: string[]): string {
  return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function rootSnapshot(): string {
  const sysctls = ['ipv4/ip_forward', 'ipv6/conf/all/forwarding'].map((k) => `${k}=${readFileSync(`/proc/sys/net/${k}`, 'utf8').trim()}`).join('\n');
  return [sh('ip', ['-br', 'link']), sh('ip', ['route']), sh('ip', ['-6', 'route']), sh('nft', ['list', 'ruleset']), sysctls].join('\n--\n');
}

/** What the kernel sees in a namespace: `ip -j` output parsed. */
function ipJson(ns: string, args: string[]): Array<Record<string, unknown>> {
  return JSON.parse(sh('ip', ['-n', ns, '-j', ...args]) || '[]') as Array<Record<string, unknown>>;
}

function inNetns(ns: string, file: string, args: string[]): string {
  return sh('nsenter', [`--net=${netnsPath(ns)}`, file, ...args]);
}

function writeScript(path: string, text: string): void {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

interface AuditLine {
  env: Record<string, string>;
  stdin: Record<string, unknown>;
  netns: string;
  podIf: boolean;
}

describe('CNI runtime with real plugins in network namespaces', { skip }, () => {
  let work: string;
  let dataDir: string;
  let userDir: string;
  let auditLog: string;
  let failLog: string;
  let rootBefore: string;
  const created: string[] = [];

  before(() => {
    rootBefore = rootSnapshot();
    work = mkdtempSync(join(tmpdir(), `${prefix}-`));
    dataDir = join(work, 'ipam');
    userDir = join(work, 'plugins');
    auditLog = join(work, 'audit.log');
    failLog = join(work, 'fail.log');
    execFileSync('mkdir', ['-p', userDir]);
    for (const ns of [NODE, POD1, POD2]) {
      sh('ip', ['netns', 'add', ns]);
      created.push(ns);
      sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    }
    // A user plugin: logs its environment, stdin and network namespace, speaks 1.1.0, passes prevResult on.
    writeScript(
      join(userDir, 'akaudit'),
      `#!/bin/bash
input=$(cat)
# Whether the pod interface exists right now: tells DEL order (this plugin comes after bridge in the chain).
if [ -n "\${CNI_NETNS:-}" ] && nsenter --net="$CNI_NETNS" ip link show "$CNI_IFNAME" > /dev/null 2>&1; then podif=true; else podif=false; fi
jq -cn --argjson stdin "$input" --arg ns "$(readlink /proc/self/ns/net)" --argjson podif $podif '{env: env, stdin: $stdin, netns: $ns, podIf: $podif}' >> '${auditLog}'
case "$CNI_COMMAND" in
  VERSION) echo '{"cniVersion":"1.1.0","supportedVersions":["0.4.0","1.0.0","1.1.0"]}' ;;
  ADD) jq -c '.prevResult // {cniVersion: .cniVersion}' <<<"$input" ;;
  STATUS) if [ -e '${join(work, 'audit-down')}' ]; then echo '{"code":50,"msg":"akaudit is not ready"}'; exit 1; fi ;;
esac
exit 0
`,
    );
    // A plugin that always fails ADD with a CNI error object (code 100: plugin-specific).
    // A plugin that hangs on ADD (exec: the timeout kills the process itself, nothing is left behind).
    writeScript(
      join(userDir, 'akslow'),
      `#!/bin/bash
cat > /dev/null
case "$CNI_COMMAND" in
  VERSION) echo '{"cniVersion":"1.0.0","supportedVersions":["1.0.0"]}' ;;
  ADD) exec sleep 60 ;;
esac
exit 0
`,
    );
    writeScript(
      join(userDir, 'akfail'),
      `#!/bin/bash
cat > /dev/null
echo "$CNI_COMMAND \${CNI_CONTAINERID:-}" >> '${failLog}'
case "$CNI_COMMAND" in
  VERSION) echo '{"cniVersion":"1.0.0","supportedVersions":["0.3.1","0.4.0","1.0.0"]}' ;;
  ADD) echo '{"code":100,"msg":"akfail refuses","details":"by design"}'; exit 1 ;;
esac
exit 0
`,
    );
  });

  after(() => {
    // By name, whatever happened above (a pod namespace may already be gone: a test deletes one on purpose).
    deleteNetnsNamed(created);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  function bridgeList(extra: Array<Record<string, unknown>>, name = 'aknet'): NetworkList {
    const conf = {
      cniVersion: '1.0.0',
      name,
      plugins: [
        {
          type: 'bridge',
          bridge: 'cbr0',
          isGateway: true,
          ipMasq: false,
          mtu: 1500,
          ipam: { type: 'host-local', ranges: [[{ subnet: '10.244.0.0/24', gateway: '10.244.0.1' }]], routes: [{ dst: '0.0.0.0/0' }], dataDir },
        },
        ...extra,
      ],
    };
    return parseNetworkList(`${name}.conflist`, JSON.stringify(conf));
  }

  const reservations = (net: string): string[] =>
    existsSync(join(dataDir, net)) ? readdirSync(join(dataDir, net)).filter((f) => /^\d+\.\d+\.\d+\.\d+$/.test(f)) : [];
  const readAudit = (): AuditLine[] =>
    existsSync(auditLog)
      ? readFileSync(auditLog, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as AuditLine)
      : [];

  function pod(ns: string, containerId: string, extra: Partial<Attachment> = {}): Attachment {
    return {
      containerId,
      netns: netnsPath(ns),
      ifName: 'eth0',
      hostNetns: netnsPath(NODE),
      pod: { namespace: 'default', name: `web-${containerId.slice(-1)}`, uid: `uid-${containerId}` },
      ...extra,
    };
  }

  describe('bridge + portmap + tuning', () => {
    let runtime: CniRuntime;
    let net: NetworkList;
    const cid1 = `${prefix}c1`;
    const cid2 = `${prefix}c2`;
    const mac1 = '02:aa:bb:00:00:01';
    let ip1 = '';
    let ip2 = '';

    before(async () => {
      runtime = new CniRuntime({ cacheDir: join(work, 'cache'), pluginDirs: [userDir, SYSTEM_PLUGINS], timeoutMs: 30_000 });
      const file = join(work, '10-aknet.conflist');
      writeFileSync(
        file,
        bridgeList([
          { type: 'portmap', capabilities: { portMappings: true }, snat: true },
          { type: 'tuning', capabilities: { mac: true }, sysctl: { 'net.core.somaxconn': '512' } },
        ]).bytes,
      );
      net = await runtime.load(file, { hostNetns: netnsPath(NODE) });
      assert.equal(net.cniVersion, '1.0.0');
      assert.deepEqual(
        net.plugins.map((p) => p.type),
        ['bridge', 'portmap', 'tuning'],
      );
    });

    test('ADD: two pods get distinct addresses on cbr0 inside the node namespace; prevResult reaches tuning', async () => {
      // Issued together: different containers run at once on the node (bridge and host-local lock what they share).
      const [r1, r2] = await Promise.all([
        runtime.add(net, pod(POD1, cid1, { capabilityArgs: { portMappings: [{ hostPort: 30080, containerPort: 8080, protocol: 'tcp' }], mac: mac1 } })),
        runtime.add(net, pod(POD2, cid2)),
      ]);
      const ips = [r1, r2].map((r) => (r['ips'] as Array<{ address: string }>)[0]!.address);
      [ip1, ip2] = ips.map((a) => a.split('/')[0]!);
      assert.notEqual(ip1, ip2);
      for (const a of ips) assert.match(a, /^10\.244\.0\.\d+\/24$/);

      // The bridge is in the node namespace, with the gateway address; the root namespace has no new link.
      const cbr0 = ipJson(NODE, ['addr', 'show', 'cbr0']);
      assert.equal(cbr0.length, 1);
      assert.ok((cbr0[0]!['addr_info'] as Array<{ local: string }>).some((a) => a.local === '10.244.0.1'));
      assert.equal(sh('ip', ['-br', 'link']), rootBefore.split('\n--\n')[0]);

      // The pods' eth0 carry the addresses the result reports.
      for (const [ns, ip] of [
        [POD1, ip1],
        [POD2, ip2],
      ] as const) {
        const eth0 = ipJson(ns, ['addr', 'show', 'eth0']);
        assert.ok(
          (eth0[0]!['addr_info'] as Array<{ local: string }>).some((a) => a.local === ip),
          `${ns} has ${ip}`,
        );
      }

      // tuning got the mac capability and bridge's result as prevResult: it set the MAC and reported it in the
      // result's sandbox interface (it fails without a prevResult); pod 2 was not given one.
      const eth0In = (r: Record<string, unknown>) =>
        (r['interfaces'] as Array<{ name: string; mac: string; sandbox?: string }>).find((i) => i.name === 'eth0' && i.sandbox);
      assert.equal(eth0In(r1)?.mac, mac1);
      assert.equal(ipJson(POD1, ['link', 'show', 'eth0'])[0]!['address'], mac1);
      assert.notEqual(eth0In(r2)?.mac, mac1);
      assert.equal(inNetns(POD1, 'sysctl', ['-n', 'net.core.somaxconn']).trim(), '512');

      // portmap only got portMappings (its capability) and programmed the DNAT in the node namespace.
      assert.match(inNetns(NODE, 'iptables-save', ['-t', 'nat']), new RegExp(`--to-destination ${ip1.replace(/\./g, '\\.')}:8080`));

      // host-local's reservations and the libcni-format cache entries.
      assert.deepEqual(reservations('aknet').sort(), [ip1, ip2].sort());
      assert.match(readFileSync(join(dataDir, 'aknet', ip1), 'utf8'), new RegExp(`^${cid1}\\s+eth0`));
      const cached = JSON.parse(readFileSync(join(work, 'cache', 'results', `aknet-${cid1}-eth0`), 'utf8')) as Record<string, unknown>;
      assert.equal(cached['kind'], 'cniCacheV1');
      assert.equal(cached['containerId'], cid1);
      assert.equal(cached['ifName'], 'eth0');
      assert.equal(cached['networkName'], 'aknet');
      assert.deepEqual(cached['result'], r1);
      assert.deepEqual(cached['capabilityArgs'], { portMappings: [{ hostPort: 30080, containerPort: 8080, protocol: 'tcp' }], mac: mac1 });
      assert.deepEqual(cached['cniArgs'], [
        ['IgnoreUnknown', '1'],
        ['K8S_POD_NAMESPACE', 'default'],
        ['K8S_POD_NAME', 'web-1'],
        ['K8S_POD_INFRA_CONTAINER_ID', cid1],
        ['K8S_POD_UID', `uid-${cid1}`],
      ]);
      assert.equal((JSON.parse(Buffer.from(cached['config'] as string, 'base64').toString()) as { name: string }).name, 'aknet');
    });

    test('a second ADD of the same attachment is refused without touching the first', async () => {
      await assert.rejects(runtime.add(net, pod(POD1, cid1)), (e: unknown) => e instanceof CniError && /already has interface "eth0"/.test(e.message));
      assert.deepEqual(reservations('aknet').sort(), [ip1, ip2].sort());
    });

    test('CHECK passes for both pods (portmap #819 is reported as a warning, never as a pass of a broken pod)', async (t) => {
      for (const [ns, cid] of [
        [POD1, cid1],
        [POD2, cid2],
      ] as const) {
        const report = await runtime.check(net, pod(ns, cid));
        for (const w of report.warnings) t.diagnostic(`${cid}: ${w}`);
        assert.deepEqual(report.checked, ['bridge', 'portmap', 'tuning']);
        for (const w of report.warnings) assert.match(w, /^plugin type="portmap" failed \(check\): could not check ipv6 dnat/);
      }
      // CHECK does detect a broken attachment: with pod 2's address gone, bridge fails.
      sh('ip', ['-n', POD2, 'addr', 'del', `${ip2}/24`, 'dev', 'eth0']);
      await assert.rejects(
        runtime.check(net, pod(POD2, cid2)),
        (e: unknown) => e instanceof CniError && /plugin type="bridge" failed \(check\)/.test(e.message),
      );
    });

    test('DEL releases the reservation, the DNAT and the cache entry; DEL again and DEL of a gone netns are fine', async () => {
      await runtime.del(net, pod(POD1, cid1));
      assert.deepEqual(reservations('aknet'), [ip2]);
      assert.ok(!existsSync(join(work, 'cache', 'results', `aknet-${cid1}-eth0`)));
      assert.doesNotMatch(inNetns(NODE, 'iptables-save', ['-t', 'nat']), new RegExp(`${ip1.replace(/\./g, '\\.')}:8080`));
      assert.deepEqual(
        ipJson(POD1, ['link', 'show']).map((l) => l['ifname']),
        ['lo'],
      );
      await runtime.del(net, pod(POD1, cid1));

      // Pitfall 11: the pod namespace went away without DEL; DEL must still release the address.
      sh('ip', ['netns', 'del', POD2]);
      await runtime.del(net, pod(POD2, cid2));
      assert.deepEqual(reservations('aknet'), []);
      assert.deepEqual(readdirSync(join(work, 'cache', 'results')), []);
    });

    test('a plugin failing in the middle of ADD rolls back the plugins before it', async () => {
      const failing = bridgeList([{ type: 'akfail' }, { type: 'tuning' }], 'akfailnet');
      const cid = `${prefix}c3`;
      await assert.rejects(runtime.add(failing, pod(POD1, cid)), (e: unknown) => {
        assert.ok(e instanceof CniError);
        assert.equal(e.error.code, 100);
        assert.equal(e.error.msg, 'akfail refuses');
        assert.match(e.message, /^plugin type="akfail" failed \(add\): akfail refuses: by design$/);
        return true;
      });
      const calls = readFileSync(failLog, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && l !== 'VERSION');
      assert.deepEqual(calls, [`ADD ${cid}`, `DEL ${cid}`]);
      assert.deepEqual(reservations('akfailnet'), [], 'bridge DEL released the address host-local gave');
      assert.deepEqual(
        ipJson(POD1, ['link', 'show']).map((l) => l['ifname']),
        ['lo'],
      );
      assert.ok(!existsSync(join(work, 'cache', 'results', `akfailnet-${cid}-eth0`)));
    });
  });

  test('a plugin that hangs is killed at the timeout and rolled back', async () => {
    const runtime = new CniRuntime({ cacheDir: join(work, 'cache-slow'), pluginDirs: [userDir, SYSTEM_PLUGINS], timeoutMs: 300 });
    const net = bridgeList([{ type: 'akslow' }], 'akslow');
    const cid = `${prefix}s1`;
    await assert.rejects(
      runtime.add(net, pod(POD1, cid)),
      (e: unknown) => e instanceof CniError && /^plugin type="akslow" failed \(add\): plugin "akslow" failed \(timed out after 300 ms\)/.test(e.message),
    );
    assert.deepEqual(reservations('akslow'), []);
    assert.equal(sh('ip', ['netns', 'pids', NODE]).trim(), '', 'no plugin process left in the node namespace');
  });

  describe('a user plugin dir before /usr/lib/cni', () => {
    let runtime: CniRuntime;
    let net: NetworkList;
    const cid1 = `${prefix}u1`;
    const cid2 = `${prefix}u2`;

    before(async () => {
      runtime = new CniRuntime({ cacheDir: join(work, 'cache-user'), pluginDirs: [userDir, SYSTEM_PLUGINS] });
      net = (
        await runtime.resolve(bridgeList([{ type: 'akaudit', capabilities: { portMappings: true, bandwidth: true, dns: false } }], 'akuser'), netnsPath(NODE))
      ).net;
      if (!existsSync(netnsPath(POD2))) {
        sh('ip', ['netns', 'add', POD2]);
      }
    });

    test('the user plugin runs in the node namespace with CNI_* only and the stdin libcni builds', async () => {
      const { plugins } = await runtime.resolve(net);
      assert.deepEqual(
        plugins.map((p) => p.binary),
        [join(SYSTEM_PLUGINS, 'bridge'), join(userDir, 'akaudit')],
      );
      writeFileSync(auditLog, '');
      const capabilityArgs = {
        portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }],
        bandwidth: { ingressRate: 1000000, ingressBurst: 100000 },
        dns: { nameservers: ['10.0.0.10'] },
        mac: '02:00:00:00:00:09',
      };
      const result = await runtime.add(net, pod(POD1, cid1, { capabilityArgs }));
      const [line] = readAudit();
      assert.ok(line);
      const nodeIno = statSync(netnsPath(NODE)).ino;
      assert.equal(line.netns, `net:[${nodeIno}]`);
      assert.deepEqual(
        Object.keys(line.env)
          .filter((k) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(k))
          .sort(),
        ['CNI_ARGS', 'CNI_COMMAND', 'CNI_CONTAINERID', 'CNI_IFNAME', 'CNI_NETNS', 'CNI_PATH', 'PATH'],
      );
      assert.equal(line.env['CNI_COMMAND'], 'ADD');
      assert.equal(line.env['CNI_CONTAINERID'], cid1);
      assert.equal(line.env['CNI_NETNS'], netnsPath(POD1));
      assert.equal(line.env['CNI_IFNAME'], 'eth0');
      assert.equal(line.env['CNI_PATH'], `${userDir}:${SYSTEM_PLUGINS}`);
      assert.equal(
        line.env['CNI_ARGS'],
        `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-1;K8S_POD_INFRA_CONTAINER_ID=${cid1};K8S_POD_UID=uid-${cid1}`,
      );
      // stdin: its own object + name + cniVersion + only its enabled capabilities + bridge's result.
      assert.equal(line.stdin['name'], 'akuser');
      assert.equal(line.stdin['cniVersion'], '1.0.0');
      assert.deepEqual(line.stdin['runtimeConfig'], { portMappings: capabilityArgs.portMappings, bandwidth: capabilityArgs.bandwidth });
      assert.deepEqual(line.stdin['prevResult'], result, 'the last plugin echoed prevResult, so it is the final result');
      assert.match(JSON.stringify(result['ips']), /10\.244\.0\./);

      writeFileSync(auditLog, '');
      await runtime.check(net, pod(POD1, cid1));
      await runtime.del(net, pod(POD1, cid1));
      const [check, del] = readAudit();
      assert.equal(check?.env['CNI_COMMAND'], 'CHECK');
      assert.deepEqual(check?.stdin['prevResult'], result);
      assert.equal(del?.env['CNI_COMMAND'], 'DEL');
      assert.deepEqual(del?.stdin['prevResult'], result);
      assert.equal(del?.podIf, true, 'DEL runs in reverse: akaudit before bridge removes eth0');
      assert.equal(line.podIf, true, 'ADD runs in order: bridge made eth0 before akaudit');
      assert.deepEqual(
        del?.stdin['runtimeConfig'],
        { portMappings: capabilityArgs.portMappings, bandwidth: capabilityArgs.bandwidth },
        'DEL uses the cached capability args',
      );
      assert.deepEqual(reservations('akuser'), []);
    });

    test('STATUS goes only to the plugin that speaks 1.1.0; its error code comes back', async () => {
      writeFileSync(auditLog, '');
      assert.deepEqual(await runtime.status(net, { hostNetns: netnsPath(NODE) }), { asked: ['akaudit'], skipped: ['bridge'] });
      const [line] = readAudit();
      assert.equal(line?.env['CNI_COMMAND'], 'STATUS');
      assert.equal(line?.stdin['cniVersion'], '1.1.0');
      assert.equal(line?.stdin['name'], 'akuser');
      assert.equal(line?.env['CNI_CONTAINERID'], undefined);
      writeFileSync(join(work, 'audit-down'), '');
      await assert.rejects(
        runtime.status(net),
        (e: unknown) => e instanceof CniError && e.error.code === 50 && /plugin type="akaudit" failed \(status\): akaudit is not ready/.test(e.message),
      );
      rmSync(join(work, 'audit-down'));
    });

    test('GC: the 1.1.0 plugin gets the valid attachments; bridge, without GC, gets DEL for the stale one', async () => {
      await runtime.add(net, pod(POD1, cid1));
      await runtime.add(net, pod(POD2, cid2));
      const [ip1, ip2] = [cid1, cid2].map((c) => reservations('akuser').find((ip) => readFileSync(join(dataDir, 'akuser', ip), 'utf8').startsWith(c))!);
      assert.ok(ip1 && ip2);
      writeFileSync(auditLog, '');
      const report = await runtime.gc(net, [{ containerID: cid1, ifname: 'eth0' }], { hostNetns: netnsPath(NODE) });
      assert.deepEqual(report, { stale: [{ containerID: cid2, ifname: 'eth0' }], collected: ['akaudit'] });
      assert.deepEqual(reservations('akuser'), [ip1]);
      assert.deepEqual(
        ipJson(POD2, ['link', 'show']).map((l) => l['ifname']),
        ['lo'],
      );
      assert.deepEqual(readdirSync(join(work, 'cache-user', 'results')), [`akuser-${cid1}-eth0`]);
      const lines = readAudit();
      assert.deepEqual(
        lines.map((l) => l.env['CNI_COMMAND']),
        ['GC'],
        'akaudit got GC, not a DEL',
      );
      assert.deepEqual(lines[0]!.stdin['cni.dev/valid-attachments'], [{ containerID: cid1, ifname: 'eth0' }]);
      assert.equal(lines[0]!.stdin['cniVersion'], '1.1.0');
      await runtime.del(net, pod(POD1, cid1));
      assert.deepEqual(reservations('akuser'), []);
    });

    test('a 1.1.0 list of a 1.1.0 plugin; cniVersions picks the newest version every plugin speaks', async () => {
      const only = parseNetworkList('x.conflist', JSON.stringify({ cniVersion: '1.1.0', name: 'akonly', plugins: [{ type: 'akaudit' }] }));
      assert.deepEqual(await runtime.status(only), { asked: ['akaudit'], skipped: [] });
      const both = bridgeList([{ type: 'akaudit' }], 'akboth');
      const multi = parseNetworkList(
        'y.conflist',
        JSON.stringify({ ...JSON.parse(both.bytes), cniVersion: undefined, cniVersions: ['0.4.0', '1.1.0', '1.0.0', '2.0.0'] }),
      );
      assert.deepEqual(multi.versionCandidates, ['1.1.0', '1.0.0', '0.4.0']);
      assert.equal((await runtime.resolve(multi)).net.cniVersion, '1.0.0');
    });
  });

  describe('bad network configs get clear CNI errors', () => {
    const runtime = (): CniRuntime => new CniRuntime({ cacheDir: join(work, 'cache-bad'), pluginDirs: [userDir, SYSTEM_PLUGINS] });

    test('a version no plugin speaks', async () => {
      const net = parseNetworkList('v.conflist', JSON.stringify({ cniVersion: '9.9.9', name: 'akv', plugins: [{ type: 'bridge' }, { type: 'tuning' }] }));
      await assert.rejects(runtime().resolve(net), (e: unknown) => {
        assert.ok(e instanceof CniError);
        assert.equal(e.error.code, 1);
        assert.match(e.message, /incompatible CNI versions: network "akv" needs config version "9\.9\.9"/);
        assert.match(e.error.details ?? '', /bridge \(\/usr\/lib\/cni\/bridge\) supports 0\.1\.0, .*1\.0\.0/);
        return true;
      });
      // ADD refuses too, before running anything.
      await assert.rejects(runtime().add(net, pod(POD1, `${prefix}v1`)), (e: unknown) => e instanceof CniError && e.error.code === 1);
      assert.deepEqual(
        ipJson(POD1, ['link', 'show']).map((l) => l['ifname']),
        ['lo'],
      );
    });

    test('CHECK on a list older than 0.4.0', async () => {
      const net = parseNetworkList('o.conflist', JSON.stringify({ cniVersion: '0.3.1', name: 'akold', plugins: [{ type: 'bridge' }] }));
      await assert.rejects(
        runtime().check(net, pod(POD1, `${prefix}o1`)),
        (e: unknown) => e instanceof CniError && e.error.code === 1 && e.message === 'configuration version "0.3.1" does not support the CHECK command',
      );
    });

    test('a plugin that is nowhere in the path', async () => {
      const net = parseNetworkList('m.conflist', JSON.stringify({ cniVersion: '1.0.0', name: 'akm', plugins: [{ type: 'bridge' }, { type: 'nosuchplugin' }] }));
      await assert.rejects(runtime().resolve(net), (e: unknown) => {
        assert.ok(e instanceof CniError);
        assert.equal(e.error.code, 7);
        assert.equal(e.error.msg, `failed to find plugin "nosuchplugin" in path [${userDir} ${SYSTEM_PLUGINS}]`);
        return true;
      });
    });

    test('malformed lists and attachments', async () => {
      assert.throws(
        () => parseNetworkList('a.conflist', '{"name":"x","plugins":[]}'),
        (e: unknown) => e instanceof CniError && e.error.code === 7 && /no plugins in list/.test(e.message),
      );
      assert.throws(
        () => parseNetworkList('a.conflist', '{"name":"x","cniVersion":"1.0","plugins":[{"type":"bridge"}]}'),
        (e: unknown) => e instanceof CniError && /invalid CNI version "1\.0"/.test(e.message),
      );
      const single = parseNetworkList('99-one.conf', JSON.stringify({ cniVersion: '0.4.0', name: 'akone', type: 'bridge', bridge: 'x0' }));
      assert.deepEqual(single.plugins, [{ cniVersion: '0.4.0', name: 'akone', type: 'bridge', bridge: 'x0' }]);
      assert.equal(single.cniVersion, '0.4.0');
      await assert.rejects(runtime().add(single, { containerId: '-bad', ifName: 'eth0' }), (e: unknown) => e instanceof CniError && e.error.code === 4);
      await assert.rejects(
        runtime().del(single, { containerId: 'ok', ifName: 'a-very-long-ifname' }),
        (e: unknown) => e instanceof CniError && /too long/.test(e.message),
      );
    });
  });

  test('the root network namespace is unchanged', () => {
    assert.equal(rootSnapshot(), rootBefore);
  });
});

test('NodeGate: one container runs in order, other containers and nodes do not wait for it, a node-wide call runs alone', async () => {
  const gate = new NodeGate(2);
  const events: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const a1 = gate.container('node-a', 'c1', async () => {
    events.push('a1 start');
    await held;
    events.push('a1 end');
  });
  const a2 = gate.container('node-a', 'c1', async () => {
    events.push('a2');
    throw new Error('a2 fails');
  });
  const a3 = gate.container('node-a', 'c1', async () => events.push('a3'));
  // Another container of the same node, and another node, run while c1 is held.
  await gate.container('node-a', 'c2', async () => events.push('c2'));
  await gate.container('node-b', 'c1', async () => events.push('b1'));
  assert.deepEqual(events, ['a1 start', 'c2', 'b1']);
  // The node-wide call waits for c1; c3, asked after it, waits for it in turn.
  const gc = gate.node('node-a', async () => events.push('gc'));
  const c3 = gate.container('node-a', 'c3', async () => events.push('c3'));
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(events, ['a1 start', 'c2', 'b1']);
  release();
  await a1;
  await assert.rejects(a2, /a2 fails/);
  await Promise.all([a3, gc, c3]);
  assert.deepEqual(events, ['a1 start', 'c2', 'b1', 'a1 end', 'a2', 'a3', 'gc', 'c3']);
});

test('NodeGate: at most its limit run at once on a node', async () => {
  const gate = new NodeGate(2);
  let running = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      gate.container('node-a', `c${i}`, async () => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 10));
        running--;
      }),
    ),
  );
  assert.equal(most, 2);
});

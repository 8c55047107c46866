// The control plane driving the real netns data plane (root only): a server started with the driver that
// `aksemu start --dataplane netns` loads, two VMs made with aksemu az, probes between them and from the
// "internet" host, and on close every namespace of this run gone and the host's network untouched.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { loadDataplane, netnsPrerequisiteProblem } from '../../src/dataplane/load.js';
import { azIn, groupWithSubnet } from '../compute/helpers.js';
import { removeHome, startTestServer, tempHome } from '../e2e/harness.js';
import { parseFrom, parseTo, runProbe } from '../../src/cli/probe.js';

const problem = netnsPrerequisiteProblem();

/** The root namespace's routes, links, addresses and rulesets: identical before and after. */
function hostNetwork(): string {
  const run = (file: string, args: string[]) => {
    try {
      return execFileSync(file, args, { encoding: 'utf8' });
    } catch (err) {
      return `${file} failed: ${(err as Error).message}`;
    }
  };
  return [run('ip', ['route']), run('ip', ['-br', 'link']), run('ip', ['-br', 'addr']), run('nft', ['list', 'ruleset'])].join('\n');
}

function namespaces(prefix: string): string[] {
  return execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.split(' ')[0]!)
    .filter((n) => n.startsWith(`${prefix}-`));
}

async function probe(home: string, from: string, to: string, timeout = 5000): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runProbe(
    { from: parseFrom(from), to: parseTo(to), output: 'text', timeout },
    { env: { AKSEMU_HOME: home }, stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } },
  );
  return { code, stdout, stderr };
}

describe('aksemu probe on the netns data plane', { skip: problem ?? false }, () => {
  it("VM to VM and internet to VM connect with the sender's address; close removes every namespace", async () => {
    const before = hostNetwork();
    const home = tempHome();
    const lines: string[] = [];
    const dataplane = await loadDataplane('netns', { home, log: (l) => lines.push(l) });
    const prefix = (dataplane as unknown as { names: { prefix: string } }).names.prefix;
    const server = await startTestServer({ home, dataplane, dataplaneDebounceMs: 5 });
    try {
      await groupWithSubnet(home, 'rg');
      for (const [name, ip] of [
        ['vm1', '10.0.1.10'],
        ['vm2', '10.0.1.11'],
      ] as const) {
        const r = await azIn(home, [
          'vm',
          'create',
          '-g',
          'rg',
          '-n',
          name,
          '--vnet-name',
          'vnet1',
          '--subnet',
          'web',
          '--private-ip-address',
          ip,
          '--admin-username',
          'azureuser',
          '--generate-ssh-keys',
          '--public-ip-address',
          '',
          '--nsg',
          '',
        ]);
        assert.equal(r.code, 0, r.stderr);
      }
      await server.dataplane.idle();
      assert.equal(server.dataplane.stats.failures, 0, lines.join('\n'));
      assert.ok(namespaces(prefix).length >= 3, 'a router, two VMs (and the internet host)');

      assert.deepEqual(await probe(home, 'vm/vm1', '10.0.1.11:8080'), { code: 0, stdout: 'connected from 10.0.1.10\n', stderr: '' });
      assert.deepEqual(await probe(home, 'vm/vm2', '10.0.1.10:22'), { code: 0, stdout: 'connected from 10.0.1.11\n', stderr: '' });
      const inbound = await probe(home, 'internet', '10.0.1.10:80');
      assert.equal(inbound.code, 0, inbound.stderr);
      assert.match(inbound.stdout, /^connected from 198\.51\.100\.\d+\n$/);

      // Deleting a VM takes its namespace away; probing it then fails.
      assert.equal((await azIn(home, ['vm', 'delete', '-g', 'rg', '-n', 'vm2', '--yes'])).code, 0);
      await server.dataplane.idle();
      const gone = await probe(home, 'vm/vm1', '10.0.1.11:8080', 1000);
      assert.equal(gone.code, 1);
      assert.match(gone.stdout, /^failed: /);
    } finally {
      await server.close();
      removeHome(home);
    }
    assert.deepEqual(namespaces(prefix), [], 'close removes every namespace of this run');
    assert.equal(hostNetwork(), before);
  });
});

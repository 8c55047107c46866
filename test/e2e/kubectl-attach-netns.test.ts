// `kubectl run -i`, `kubectl run -it … -- sh` and `kubectl attach` with the real kubectl against a kubenet cluster
// with `--network-policy calico` on the netns data plane (docs/clients.md §5.20): pods/attach over the websocket
// kubectl speaks first and over SPDY (KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false). `kubectl run --rm -i
// --restart=Never --image=busybox -- wget -qO- --timeout=2 http://web` prints the backend's page and exits 0,
// the pod deleted after; a shell reads kubectl's stdin line by line and `exit N` is kubectl's exit code; on a
// terminal (kubectl under script(1)) the shell prompts `/ # ` and echoes what is typed; `kubectl attach` hears a
// running loop and drives a stdin shell; after a deny-all NetworkPolicy busybox's `wget: download timed out`
// and exit 1. Root only.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KUBECTL, type KubectlResult, runTool } from '../cluster/harness.js';
import { DataplaneWorld, eventually, REMOTE_COMMAND_TRANSPORTS, skipReason } from './dataplane-harness.js';

const CLUSTER = 'at1';
const PAGE = /Served by aksemu for pod web-[01]\./;

describe('kubectl run -i, run -it and attach (netns data plane)', { skip: skipReason() }, () => {
  let world: DataplaneWorld;
  let calls = 0;

  const env = (more: Record<string, string> = {}) => ({ ...process.env, KUBECONFIG: world.kubeconfig, HOME: world.scratch, ...more });
  const cacheDir = () => `--cache-dir=${join(world.scratch, `cache-at${++calls}`)}`;

  /** kubectl with its stdin from `input` (then EOF). */
  const kubectl = (args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<KubectlResult> =>
    runTool(KUBECTL, [cacheDir(), ...args], { KUBECONFIG: world.kubeconfig, HOME: world.scratch, ...options.env }, 90_000, options.input);

  /** kubectl on a terminal of its own (util-linux script(1)): what the terminal shows, typed into as it goes. */
  class Terminal {
    private readonly child: ChildProcess;
    output = '';
    readonly exited: Promise<number>;

    constructor(args: string[], more: Record<string, string> = {}) {
      const command = [KUBECTL, cacheDir(), ...args].map((w) => `'${w}'`).join(' ');
      this.child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], { env: env(more) });
      this.child.stdout!.on('data', (d) => (this.output += d));
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 90_000);
      this.exited = new Promise((resolve) =>
        this.child.on('close', (code) => {
          clearTimeout(timer);
          resolve(code ?? 1);
        }),
      );
    }

    /** Waits until the screen (from `from` on) matches. */
    async see(pattern: RegExp, from = 0, what = String(pattern)): Promise<number> {
      await eventually(() => pattern.test(this.output.slice(from)), 60_000, `${what} on the terminal`).catch((e: Error) => {
        throw new Error(`${e.message}; it shows ${JSON.stringify(this.output)}`);
      });
      return this.output.length;
    }

    type(keys: string): void {
      this.child.stdin!.write(keys);
    }
  }

  /** A busybox pod whose container is `sh` with stdin kept open (and a terminal), Ready. */
  const shellPod = async (name: string, tty: boolean) => {
    const container = { name, image: 'busybox', command: ['sh'], stdin: true, ...(tty ? { tty } : {}) };
    await world.create(
      `${name}.json`,
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { restartPolicy: 'Never', containers: [container] } }),
    );
    await world.kubectlOk(['wait', '--for=condition=Ready', `pod/${name}`, '--timeout=60s']);
  };

  const gone = (name: string) => eventually(async () => (await world.kubectl(['get', 'pod', name])).code !== 0, 30_000, `pod ${name} to be deleted by --rm`);

  before(async () => {
    world = new DataplaneWorld();
    await world.startWebCluster(CLUSTER);
  });
  after(async () => {
    await world?.close();
    world?.assertClean();
  });

  for (const [protocol, more] of REMOTE_COMMAND_TRANSPORTS) {
    it(`${protocol}: kubectl run --rm -i --restart=Never --image=busybox -- wget prints the page, exits 0, deletes the pod`, async () => {
      const name = `fetch-${protocol.toLowerCase()}`;
      const r = await kubectl(['run', name, '--rm', '-i', '--restart=Never', '--image=busybox', '--', 'wget', '-qO-', '--timeout=2', 'http://web'], {
        env: more,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, PAGE);
      assert.match(r.stdout, new RegExp(`pod "${name}" deleted`));
      await gone(name);
    });

    it(`${protocol}: kubectl run -i -- sh reads its stdin line by line; exit N is kubectl's exit code`, async () => {
      const name = `shell-${protocol.toLowerCase()}`;
      const script = [
        'wget -qO- http://web | grep -c "Served by aksemu"',
        'echo "status $?"',
        'if wget -q -O /dev/null --timeout=2 http://nowhere; then',
        '  echo found',
        'else echo "not found"; fi',
        'exit 3',
        'echo never',
      ].join('\n');
      const r = await kubectl(['run', name, '--rm', '-i', '--restart=Never', '--image=busybox', '--', 'sh'], { input: `${script}\n`, env: more });
      assert.equal(r.code, 3, `${r.stdout}\n${r.stderr}`);
      // Started before kubectl attached, the shell's output all comes after: it waits on its stdin.
      assert.match(r.stdout, /^1\nstatus 0\nnot found\n/m);
      assert.doesNotMatch(r.stdout, /never/);
      assert.match(r.stderr, /wget: bad address 'nowhere'/);
      await gone(name);
    });
  }

  it('kubectl run -i -- nc web 80: the tool reads what kubectl sends (an HTTP request) and prints the answer', async () => {
    const r = await kubectl(['run', 'nc-i', '--rm', '-i', '--restart=Never', '--image=busybox', '--', 'nc', 'web', '80'], {
      input: 'GET / HTTP/1.0\r\nHost: web\r\n\r\n',
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^HTTP\/1\.[01] 200 OK\r$/m);
    assert.match(r.stdout, PAGE);
    await gone('nc-i');
  });

  it('kubectl run -it --rm -- sh on a terminal: the prompt, the echo, wget for real, exit', async () => {
    const t = new Terminal(['run', 'tty', '--rm', '-it', '--restart=Never', '--image=busybox', '--', 'sh']);
    // The shell prompted before kubectl attached: kubectl says to press enter, as on a cluster.
    let at = await t.see(/If you don't see a command prompt, try pressing enter\./);
    t.type('\r');
    at = await t.see(/\/ # $/, at, 'the prompt');
    t.type('wget -qO- http://web\r');
    at = await t.see(/wget -qO- http:\/\/web\r\n[\s\S]*Served by aksemu for pod web-[01]\.[\s\S]*\/ # $/, at, 'the echoed command, the page, a new prompt');
    // Erase works as on a terminal: `echo x` typed as `echo xy`, DEL.
    t.type('echo xy\u007f\r');
    at = await t.see(/echo xy\x08 \x08\r\nx\r\n\/ # $/, at, 'the erased character and echo x');
    t.type('exit 4\r');
    assert.equal(await t.exited, 4, t.output);
    assert.match(t.output, /pod "tty" deleted/);
    await gone('tty');
  });

  it('kubectl run -it --rm without --restart (restartPolicy Always), and kubectl attach -it to a running tty pod', async () => {
    // The docs' form: kubectl waits for no exit code with restartPolicy Always; it deletes the pod and exits 0.
    const run = new Terminal(['run', 'tty-always', '-it', '--rm', '--image=busybox', '--', 'sh']);
    let at = await run.see(/If you don't see a command prompt, try pressing enter\./);
    run.type('\r');
    at = await run.see(/\/ # $/, at, 'the prompt');
    run.type('wget -qO- http://web\r');
    await run.see(/Served by aksemu for pod web-[01]\.[\s\S]*\/ # $/, at, 'the page and a new prompt');
    run.type('exit\r');
    assert.equal(await run.exited, 0, run.output);
    assert.match(run.output, /pod "tty-always" deleted/);
    await gone('tty-always');

    await shellPod('tty-console', true);
    const attach = new Terminal(['attach', '-it', 'tty-console']);
    at = await attach.see(/If you don't see a command prompt, try pressing enter\./);
    attach.type('\r');
    at = await attach.see(/\/ # $/, at, 'the prompt');
    attach.type('echo "attached to $HOME"; exit 7\r');
    assert.equal(await attach.exited, 0, attach.output);
    assert.match(attach.output, /echo "attached to \$HOME"; exit 7\r\nattached to \r\n/);
    await eventually(
      async () => (await world.json(['get', 'pod', 'tty-console'])).status.containerStatuses[0].state.terminated?.exitCode === 7,
      30_000,
      'exit code 7',
    );
  });

  it('kubectl attach hears a running container from the moment it attaches; -i drives a stdin shell', async () => {
    await world.kubectlOk(['run', 'ticker', '--image=busybox', '--', 'sh', '-c', 'while true; do echo tick; sleep 1; done']);
    await world.kubectlOk(['wait', '--for=condition=Ready', 'pod/ticker', '--timeout=60s']);
    const watching = spawn(KUBECTL, [cacheDir(), 'attach', 'ticker'], { env: env() });
    let heard = '';
    watching.stdout.on('data', (d) => (heard += d));
    watching.stderr.on('data', (d) => (heard += d));
    await eventually(() => (heard.match(/tick\n/g) ?? []).length >= 2, 30_000, 'two ticks through attach').catch((e: Error) => {
      throw new Error(`${e.message}; heard ${JSON.stringify(heard)}`);
    });
    watching.kill('SIGTERM');

    await shellPod('console', false);
    // A websocket session types a line and leaves (its stdin still open): the shell runs on, without stdinOnce.
    const first = spawn(KUBECTL, [cacheDir(), 'attach', '-i', 'console'], { env: env() });
    let said = '';
    first.stdout.on('data', (d) => (said += d));
    first.stdin.write('echo hello over websocket\n');
    await eventually(() => /hello over websocket\n/.test(said), 30_000, `the shell's answer through attach; heard ${JSON.stringify(said)}`);
    first.kill('SIGTERM');
    assert.equal((await world.json(['get', 'pod', 'console'])).status.phase, 'Running');
    // A SPDY session finds the same shell and ends it: kubectl attach returns when the container ends.
    const r = await kubectl(['attach', '-i', 'console'], { input: 'echo hello over SPDY\nexit 0\n', env: REMOTE_COMMAND_TRANSPORTS[1]![1] });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /hello over SPDY\n/);
    await eventually(async () => (await world.json(['get', 'pod', 'console'])).status.phase === 'Succeeded', 30_000, 'console to end');
  });

  it("kubectl debug -it POD --image=busybox -- sh: an ephemeral container's shell in the pod's namespace, on a terminal", async () => {
    const t = new Terminal(['debug', '-it', 'web-0', '--image=busybox', '--', 'sh']);
    let at = await t.see(/If you don't see a command prompt, try pressing enter\./);
    t.type('\r');
    at = await t.see(/\/ # $/, at, 'the prompt');
    // The debugger shares web-0's network namespace: web-0's own nginx answers on its loopback.
    t.type('wget -qO- http://127.0.0.1/\r');
    at = await t.see(/Served by aksemu for pod web-0\.[\s\S]*\/ # $/, at, "web-0's own page over the shared loopback");
    t.type('exit 5\r');
    await t.exited;
    const debugger_ = /debug(?:ging with)? container name (?:to )?(debugger-[a-z0-9]{5})/i.exec(t.output)?.[1];
    assert.ok(debugger_, `kubectl names the debugger: ${JSON.stringify(t.output)}`);
    await eventually(
      async () =>
        (await world.json(['get', 'pod', 'web-0'])).status.ephemeralContainerStatuses?.find((s: { name: string }) => s.name === debugger_)?.state?.terminated
          ?.exitCode === 5,
      30_000,
      'the debugger terminated with exit code 5',
    );
  });

  it('after a deny-all NetworkPolicy: kubectl run --rm -i prints wget: download timed out and exits 1', async () => {
    await world.create(
      'deny.json',
      JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny-all' }, spec: { podSelector: {} } }),
    );
    let last: KubectlResult | undefined;
    await eventually(
      async () => {
        last = await kubectl(['run', `deny-${++calls}`, '--rm', '-i', '--restart=Never', '--image=busybox', '--', 'wget', '-qO-', '--timeout=2', 'http://web']);
        return last.code !== 0;
      },
      60_000,
      'the deny-all policy to block web',
    );
    assert.equal(last!.code, 1, last!.stderr);
    assert.match(last!.stderr, /^wget: download timed out$/m);
    assert.match(last!.stderr, /^pod default\/deny-\d+ terminated \(Error\)$/m);
    assert.doesNotMatch(last!.stdout, PAGE);
  });
});

// The network-tool images as catalogue data (src/cluster/images/network-tools.ts, in images/catalogue.ts): which images match, which tools each
// ships and whose build runs for a call (the host's, aksemu's busybox wget, the host's with a Warning, or not
// found), the argv a container of each runs (CMD, curlimages/curl's entrypoint rule); and the process side
// (images/processes.ts): a shell with no script exits at once, a program aksemu cannot emulate is reported
// once, and the command hook learns whether a shell runs it.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { imageSpecOf } from '../../../src/cluster/images/catalogue.js';
import { asToolImage, HOST_BUILDS, TOOL_IMAGES, toolImageArgv, toolRun as runIn } from '../../../src/cluster/images/network-tools.js';

const toolImageOf = (image: string) => asToolImage(imageSpecOf(image));
const toolRun = (image: string, argv: string[]) => runIn(imageSpecOf(image), argv);
import { EXEC_TOOLS } from '../../../src/dataplane/netns/exec-sandbox.js';
import { startProcess, type ProcessIo } from '../../../src/cluster/images/processes.js';
import { LineInput } from '../../../src/cluster/kubelet/container-io.js';

describe('network-tool images', () => {
  it('matches the images by repository, whatever the registry prefix, tag or digest', () => {
    const name = (image: string) => toolImageOf(image)?.name;
    assert.equal(name('busybox'), 'busybox');
    assert.equal(name('busybox:1.36'), 'busybox');
    assert.equal(name('docker.io/library/busybox:latest'), 'busybox');
    assert.equal(name('mcr.microsoft.com/azurelinux/busybox:1.36'), 'busybox');
    assert.equal(name('alpine:3.20'), 'alpine');
    assert.equal(name('curlimages/curl:8.10.1'), 'curlimages/curl');
    assert.equal(name('nicolaka/netshoot@sha256:0123'), 'nicolaka/netshoot');
    assert.equal(name('radial/busyboxplus:curl'), 'radial/busyboxplus');
    for (const other of ['nginx', 'busyboxplus', 'example.com/busybox', 'registry.k8s.io/e2e-test-images/agnhost:2.52'])
      assert.equal(name(other), undefined, other);
  });

  it('declares only tools kubectl exec may run, each with a build', () => {
    for (const image of TOOL_IMAGES)
      for (const [tool, build] of Object.entries(image.tools)) {
        assert.ok(EXEC_TOOLS.includes(tool), `${image.name}: ${tool}`);
        assert.ok(build, `${image.name}: ${tool}`);
      }
    for (const tool of EXEC_TOOLS) assert.ok(HOST_BUILDS[tool], `the host's build of ${tool}`);
  });

  it("runs busybox's wget as aksemu's program, curl as the host's, and refuses what the image lacks", () => {
    const wget = toolRun('busybox:1.36', ['wget', '-qO-', 'http://web']);
    assert.equal(wget.kind, 'emulated');
    assert.ok(wget.kind === 'emulated' && existsSync(`${wget.program.dir}/${wget.program.file}`), 'the program is in applets/');
    assert.deepEqual(wget.kind === 'emulated' && wget.argv, ['-qO-', 'http://web']);
    assert.deepEqual(toolRun('busybox', ['curl', 'x']), { kind: 'missing', name: 'curl' });
    assert.deepEqual(toolRun('curlimages/curl', ['/usr/bin/curl', '-s', 'x']), { kind: 'host', argv: ['curl', '-s', 'x'] });
    assert.deepEqual(toolRun('nicolaka/netshoot', ['nslookup', 'web']), { kind: 'host', argv: ['nslookup', 'web'] });
    assert.deepEqual(toolRun('nicolaka/netshoot', ['wget', 'x']).kind, 'emulated');
    assert.equal(toolRun('alpine', ['nc', '-z', 'web', '80']).kind, 'emulated');
    assert.deepEqual(toolRun('alpine', ['ping', '-c', '1', 'web']), {
      kind: 'other-build',
      argv: ['ping', '-c', '1', 'web'],
      build: 'busybox',
      hostBuild: 'iputils',
    });
    assert.deepEqual(toolRun('nicolaka/netshoot', ['nc', '-z', 'web', '80']), { kind: 'host', argv: ['nc', '-z', 'web', '80'] });
    // An image aksemu does not know runs the host's tools, as kubectl exec always did.
    assert.deepEqual(toolRun('example.com/app:1', ['/usr/bin/wget', 'x']), { kind: 'host', argv: ['/usr/bin/wget', 'x'] });
  });

  it("builds a container's argv as the image's ENTRYPOINT and CMD do", () => {
    const curl = toolImageOf('curlimages/curl')!;
    assert.deepEqual(toolImageArgv(curl, [], []), ['curl']);
    assert.deepEqual(toolImageArgv(curl, [], ['-sS', 'http://web']), ['curl', '-sS', 'http://web']);
    assert.deepEqual(toolImageArgv(curl, [], ['http://web']), ['curl', 'http://web']);
    assert.deepEqual(toolImageArgv(curl, [], ['sh', '-c', 'curl web']), ['sh', '-c', 'curl web']);
    assert.deepEqual(toolImageArgv(curl, [], ['nslookup', 'web']), ['nslookup', 'web']);
    assert.deepEqual(toolImageArgv(curl, ['curl'], ['-s', 'x']), ['curl', '-s', 'x']);
    const busybox = toolImageOf('busybox')!;
    assert.deepEqual(toolImageArgv(busybox, [], []), ['sh']);
    assert.deepEqual(toolImageArgv(busybox, [], ['wget', '-qO-', 'web']), ['wget', '-qO-', 'web']);
  });
});

describe('container processes: shells, unknown programs, the command hook', () => {
  const io = (log: string[], extra: Partial<ProcessIo> = {}): ProcessIo => ({
    write: (stream, text) => log.push(`${stream}:${text}`),
    read: () => undefined,
    unknown: 'runs',
    ...extra,
  });

  it('a shell with no script and no stdin exits 0 at once; with stdin kept open it waits', async () => {
    assert.equal(await startProcess(['sh'], {}, io([])).exited, 0);
    const waiting = startProcess(['/bin/sh'], {}, io([], { stdin: new LineInput(false) }));
    const raced = await Promise.race([waiting.exited, new Promise((r) => setTimeout(() => r('running'), 100))]);
    assert.equal(raced, 'running');
    waiting.stop();
    assert.equal(await waiting.exited, 137);
  });

  it('a program aksemu cannot emulate is reported once, then runs until stopped (or exits, for installers)', async () => {
    const told: string[][] = [];
    const p = startProcess(['sh', '-c', 'echo start; myapp --serve; other'], {}, io([], { unemulated: (argv) => told.push(argv) }));
    await new Promise((r) => setTimeout(r, 50));
    p.stop();
    assert.equal(await p.exited, 137);
    assert.deepEqual(told, [['myapp', '--serve']]);
    const exits: string[][] = [];
    assert.equal(await startProcess([], {}, io([], { unknown: 'exits', unemulated: (a) => exits.push(a) })).exited, 0);
    assert.deepEqual(exits, [[]]);
  });

  it('the command hook gets the shell running it and an abort signal that stopping the process fires', async () => {
    const seen: Array<{ argv: string[]; shell?: string | undefined }> = [];
    let aborted = false;
    const hook: ProcessIo['command'] = (argv, _io, ctx) => {
      if (argv[0] !== 'wget') return undefined;
      seen.push({ argv, ...(ctx.shell ? { shell: ctx.shell } : {}) });
      return new Promise<number>((resolve) => ctx.signal.addEventListener('abort', () => ((aborted = true), resolve(1))));
    };
    const p = startProcess(['sh', '-c', 'wget -qO- http://web || echo failed'], {}, io([], { command: hook }));
    await new Promise((r) => setTimeout(r, 50));
    p.stop();
    assert.equal(await p.exited, 137, 'stopped, not failed over to echo');
    assert.ok(aborted);
    assert.deepEqual(seen, [{ argv: ['wget', '-qO-', 'http://web'], shell: 'sh' }]);
    let shell: string | undefined = 'unset';
    const direct = startProcess(['wget', 'x'], {}, io([], { command: (_argv, _io, ctx) => ((shell = ctx.shell), Promise.resolve(3)) }));
    assert.equal(await direct.exited, 3);
    assert.equal(shell, undefined, "the container's own argv: no shell");
  });
});

describe('pipelines in sh -c', () => {
  const run = async (script: string, hook?: ProcessIo['command']): Promise<[number, string]> => {
    let out = '';
    const p = startProcess(
      ['sh', '-c', script],
      {},
      {
        write: (stream, text) => (out += stream === 'stderr' ? `E:${text}` : text),
        read: () => undefined,
        unknown: 'exits',
        ...(hook ? { command: hook } : {}),
      },
    );
    return [await p.exited, out];
  };

  it("hands each stage the previous one's output; the status is the last stage's", async () => {
    assert.deepEqual(await run('printf "a\\nb\\nc\\n" | grep -v b | wc -l'), [0, '2\n']);
    assert.deepEqual(await run('echo hello | grep -q nope'), [1, '']);
    assert.deepEqual(await run('echo one two | cat | head -n 1 && echo ok'), [0, 'one two\nok\n']);
    assert.deepEqual(await run("printf 'x1\\nx2\\nx3\\n' | tail -2"), [0, 'x2\nx3\n']);
    assert.deepEqual(await run('echo "a+b" | grep "a+b"'), [0, 'a+b\n'], 'a BRE: + is literal');
    assert.deepEqual(await run('echo aab | grep -E "a+b" | wc -c'), [0, '4\n']);
  });

  it('a tool in a pipeline gets its stdin, and its output goes down the pipe', async () => {
    const got: string[] = [];
    const hook: ProcessIo['command'] = (argv, io, ctx) => {
      if (argv[0] !== 'nc' && argv[0] !== 'wget') return undefined;
      got.push(`${argv[0]}<${ctx.stdin ?? 'none'}>`);
      io.write('stdout', 'Served by aksemu\nsecond\n');
      return Promise.resolve(0);
    };
    assert.deepEqual(await run('echo ping | nc web 80', hook), [0, 'Served by aksemu\nsecond\n']);
    assert.deepEqual(await run('wget -qO- http://web | grep -c aksemu', hook), [0, '1\n']);
    assert.deepEqual(got, ['nc<ping\n>', 'wget<>']);
  });
});

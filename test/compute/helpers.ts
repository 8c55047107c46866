// `aksemu az …` run in-process against a real server (endpoint.json in its home, real HTTPS and tokens):
// the same code path as the CLI, without a process per command.
import { PassThrough, Writable } from 'node:stream';
import { runAz } from '../../src/cli/az/run.js';

export interface AzResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

export async function azIn(home: string, args: string[]): Promise<AzResult> {
  let stdout = '';
  let stderr = '';
  const code = await runAz(args, {
    env: { AKSEMU_HOME: home },
    stdout: { write: (s: string) => (stdout += s) },
    stderr: Object.assign(new Writable({ write: (chunk, _enc, cb) => ((stderr += chunk.toString()), cb()) }), { isTTY: false }),
    stdin: Object.assign(new PassThrough(), { isTTY: false }),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20))),
  });
  let json: unknown;
  try {
    json = stdout.trim() === '' ? undefined : JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

/** A group with a VNet 10.0.0.0/16 and a subnet 10.0.1.0/24, through aksemu az. */
export async function groupWithSubnet(home: string, rg: string, vnet = 'vnet1', subnet = 'web'): Promise<void> {
  for (const args of [
    ['group', 'create', '-l', 'eastus', '-n', rg],
    ['network', 'vnet', 'create', '-g', rg, '-n', vnet, '--address-prefixes', '10.0.0.0/16', '--subnet-name', subnet, '--subnet-prefixes', '10.0.1.0/24'],
  ]) {
    const r = await azIn(home, args);
    if (r.code !== 0) throw new Error(`az ${args.join(' ')} failed: ${r.stderr}`);
  }
}

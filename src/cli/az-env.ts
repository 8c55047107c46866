// `aksemu az-env` (like `minikube docker-env`): points the real Azure CLI at the running server. It keeps a
// config dir of its own under the aksemu home (never the user's ~/.azure), seeds az's version check so az
// never calls out, registers and selects the `aksemu` cloud, logs the service principal in, and prints the
// exports for `eval "$(aksemu az-env)"`. docs/clients.md §1.2 explains each step.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { ARM_RESOURCE_ID, CLOUD_NAME } from '../arm/metadata.js';
import { findPlugin } from '../cni/exec.js';
import { resolveHome, type Endpoint } from './az/endpoint.js';
import { exportLine, NoServerError, runningServer } from './running-server.js';

/** Python loads sitecustomize.py from here: the import fixes for Debian's azure-cli 2.45. */
export const AZ_SHIM_DIR = fileURLToPath(new URL('../../../tools/az-shim', import.meta.url));

class AzEnvError extends Error {}

function azConfigDir(home: string): string {
  return join(home, 'azure');
}

/** A program on PATH: the first executable of that name, searched as a CNI runtime searches for its plugins. */
export function onPath(program: string): string | undefined {
  return findPlugin(program, (process.env['PATH'] ?? '').split(delimiter));
}

/** PYTHONPATH with the shim first (once), keeping what the user had. */
function withShim(pythonPath: string | undefined): string {
  return [AZ_SHIM_DIR, ...withoutShim(pythonPath)].join(delimiter);
}

function withoutShim(pythonPath: string | undefined): string[] {
  return (pythonPath ?? '').split(delimiter).filter((p) => p !== '' && p !== AZ_SHIM_DIR);
}

/** Files az reads before any command: without versionCheck.json the first run asks the internet for updates. */
function seedConfigDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'versionCheck.json'), JSON.stringify({ versions: {}, update_time: '2099-01-01 00:00:00.000000' }));
  const config = join(dir, 'config');
  // az rewrites this file itself (cloud, subscription); only a new one gets our defaults.
  if (!existsSync(config)) {
    writeFileSync(
      config,
      '[core]\ncollect_telemetry = false\nsurvey_message = false\nerror_recommendation = off\nfirst_run = false\n\n[extension]\nuse_dynamic_install = no\n',
      { mode: 0o600 },
    );
  }
}

function runAz(az: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(az, [...args, '--only-show-errors'], { env, timeout: 120_000 }, (err, _stdout, stderr) => {
      if (!err) return resolve();
      const why = stderr.trim().split('\n').filter(Boolean).pop() ?? err.message;
      reject(new AzEnvError(`az ${args.slice(0, 2).join(' ')} failed: ${why}`));
    });
  });
}

function cloudRegistered(configDir: string): boolean {
  try {
    return readFileSync(join(configDir, 'clouds.config'), 'utf8')
      .split('\n')
      .some((l) => l.trim() === `[${CLOUD_NAME}]`);
  } catch {
    return false;
  }
}

async function prepare(endpoint: Endpoint, configDir: string, az: string): Promise<NodeJS.ProcessEnv> {
  seedConfigDir(configDir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AZURE_CONFIG_DIR: configDir,
    REQUESTS_CA_BUNDLE: endpoint.caFile,
    PYTHONPATH: withShim(process.env['PYTHONPATH']),
  };
  const url = endpoint.url;
  const endpoints = [
    '--endpoint-resource-manager',
    `${url}/`,
    '--endpoint-active-directory',
    `${url}/adfs`,
    '--endpoint-active-directory-resource-id',
    ARM_RESOURCE_ID,
    '--endpoint-active-directory-graph-resource-id',
    `${url}/graph/`,
  ];
  // The port may differ from the last run: update the registration rather than fail on it.
  if (cloudRegistered(configDir)) await runAz(az, ['cloud', 'update', '-n', CLOUD_NAME, ...endpoints], env);
  else await runAz(az, ['cloud', 'register', '-n', CLOUD_NAME, ...endpoints], env);
  await runAz(az, ['cloud', 'set', '-n', CLOUD_NAME], env);
  await runAz(
    az,
    // --password=…: a base64url secret may begin with '-', which argparse would read as an option.
    ['login', '--service-principal', '-u', endpoint.clientId, `--password=${endpoint.clientSecret}`, '--tenant', endpoint.tenantId, '--output', 'none'],
    env,
  );
  return env;
}

export function registerAzEnv(program: Command): void {
  program
    .command('az-env')
    .description('Point the real Azure CLI at the running server: eval "$(aksemu az-env)"')
    .option('--unset', 'print the lines that undo it', false)
    .option('--home <dir>', 'state directory (default: $AKSEMU_HOME or ~/.aksemu)')
    .action(async (opts: { unset: boolean; home?: string }) => {
      const out = (lines: string[]) => process.stdout.write(`${lines.join('\n')}\n`);
      if (opts.unset) {
        const rest = withoutShim(process.env['PYTHONPATH']);
        out(['unset AZURE_CONFIG_DIR REQUESTS_CA_BUNDLE', rest.length ? exportLine('PYTHONPATH', rest.join(delimiter)) : 'unset PYTHONPATH']);
        return;
      }
      const home = resolveHome(opts.home);
      const az = onPath('az');
      try {
        if (!az) throw new AzEnvError('the Azure CLI (az) was not found on PATH');
        const endpoint = await runningServer(home);
        const configDir = azConfigDir(home);
        const env = await prepare(endpoint, configDir, az);
        out([
          exportLine('AZURE_CONFIG_DIR', configDir),
          exportLine('REQUESTS_CA_BUNDLE', endpoint.caFile),
          exportLine('PYTHONPATH', env['PYTHONPATH']!),
          `# az now uses the '${CLOUD_NAME}' cloud at ${endpoint.url}/, subscription ${endpoint.subscriptionId}.`,
          '# To point your shell at it, run:  eval "$(aksemu az-env)"   (undo: eval "$(aksemu az-env --unset)")',
        ]);
      } catch (e) {
        if (!(e instanceof AzEnvError || e instanceof NoServerError)) throw e;
        process.stderr.write(`aksemu: ${e.message}\n`);
        process.exitCode = 1;
      }
    });
}

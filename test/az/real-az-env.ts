// The sandbox the real Azure CLI (Debian azure-cli 2.45, /usr/bin/az) runs in against aksemu, set up by
// hand as docs/clients.md describes (aksemu az-env does the same for users): a throwaway AZURE_CONFIG_DIR with versionCheck.json, REQUESTS_CA_BUNDLE,
// a dead proxy as guard rail, telemetry and surveys off; optionally the import shim on PYTHONPATH.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const AZ = '/usr/bin/az';

export interface AzRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Makes `<home>/.azure` and returns the environment az runs with. */
export function realAzEnv(home: string, caFile: string, options: { pythonPath?: string } = {}): NodeJS.ProcessEnv {
  const config = join(home, '.azure');
  mkdirSync(config, { recursive: true });
  // Without it the first az run in a fresh config dir checks for updates on the internet.
  writeFileSync(
    join(config, 'versionCheck.json'),
    JSON.stringify({
      versions: { 'azure-cli': { local: '2.45.0' }, core: { local: '2.45.0' }, telemetry: { local: '1.0.8' } },
      update_time: '2099-01-01 00:00:00.000000',
    }),
  );
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    AZURE_CONFIG_DIR: config,
    REQUESTS_CA_BUNDLE: caFile,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    // Nothing listens on port 9: anything that tries to leave the machine fails fast.
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    AZURE_CORE_COLLECT_TELEMETRY: 'false',
    AZURE_CORE_ERROR_RECOMMENDATION: 'off',
    AZURE_CORE_SURVEY_MESSAGE: 'false',
    AZURE_EXTENSION_USE_DYNAMIC_INSTALL: 'no',
    ...(options.pythonPath ? { PYTHONPATH: options.pythonPath } : {}),
  };
}

/** The real az with env; its exit code, stdout and stderr. */
export function runRealAz(env: NodeJS.ProcessEnv, args: string[]): Promise<AzRun> {
  return new Promise((done) => {
    execFile(AZ, args, { env, timeout: 120_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/** What a server must offer for `loginRealAz`: its URL, CA file and service principal. */
interface AzTarget {
  url: string;
  caFile: string;
  identity: { clientId: string; clientSecret: string; tenantId: string };
}

/**
 * The steps of docs/clients.md §1.2 by hand: register and select the server as cloud `aksemu` (an /adfs authority),
 * log in as its service principal. Returns the environment the real az then runs with; throws on a failed step.
 */
export async function loginRealAz(home: string, server: AzTarget, options: { pythonPath?: string } = {}): Promise<NodeJS.ProcessEnv> {
  const env = realAzEnv(home, server.caFile, options);
  const url = server.url;
  const steps = [
    [
      'cloud',
      'register',
      '-n',
      'aksemu',
      '--endpoint-resource-manager',
      `${url}/`,
      '--endpoint-active-directory',
      `${url}/adfs`,
      '--endpoint-active-directory-resource-id',
      'https://management.core.windows.net/',
      '--endpoint-active-directory-graph-resource-id',
      `${url}/graph/`,
    ],
    ['cloud', 'set', '-n', 'aksemu'],
    ['login', '--service-principal', '-u', server.identity.clientId, `--password=${server.identity.clientSecret}`, '--tenant', server.identity.tenantId],
  ];
  for (const step of steps) {
    const r = await runRealAz(env, step);
    if (r.code !== 0) throw new Error(`az ${step.slice(0, 2).join(' ')} failed: ${r.stderr}`);
  }
  return env;
}

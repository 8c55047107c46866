// `aksemu sdk-env`: the environment the Azure SDKs read, for `eval "$(aksemu sdk-env)"`. @azure/identity's
// EnvironmentCredential / DefaultAzureCredential take the service principal from AZURE_TENANT_ID,
// AZURE_CLIENT_ID, AZURE_CLIENT_SECRET and the authority from AZURE_AUTHORITY_HOST; the tenant `adfs` makes
// MSAL trust our authority without instance discovery. Node reads NODE_EXTRA_CA_CERTS at start-up, so
// every HTTPS client in the process (MSAL's too) trusts the server's CA. ARM clients take the endpoint
// from AZURE_RESOURCE_MANAGER_ENDPOINT (docs/clients.md §4).
import type { Command } from 'commander';
import { resolveHome } from './az/endpoint.js';
import { exportLine, NoServerError, runningServer } from './running-server.js';

const SDK_ENV_NAMES = [
  'AZURE_AUTHORITY_HOST',
  'AZURE_TENANT_ID',
  'AZURE_CLIENT_ID',
  'AZURE_CLIENT_SECRET',
  'AZURE_SUBSCRIPTION_ID',
  'AZURE_RESOURCE_MANAGER_ENDPOINT',
  'NODE_EXTRA_CA_CERTS',
] as const;

export function registerSdkEnv(program: Command): void {
  program
    .command('sdk-env')
    .description('Point the Azure SDKs at the running server: eval "$(aksemu sdk-env)"')
    .option('--unset', 'print the line that undoes it', false)
    .option('--home <dir>', 'state directory (default: $AKSEMU_HOME or ~/.aksemu)')
    .action(async (opts: { unset: boolean; home?: string }) => {
      if (opts.unset) {
        process.stdout.write(`unset ${SDK_ENV_NAMES.join(' ')}\n`);
        return;
      }
      try {
        const e = await runningServer(resolveHome(opts.home));
        const values: Record<(typeof SDK_ENV_NAMES)[number], string> = {
          AZURE_AUTHORITY_HOST: e.url,
          AZURE_TENANT_ID: 'adfs',
          AZURE_CLIENT_ID: e.clientId,
          AZURE_CLIENT_SECRET: e.clientSecret,
          AZURE_SUBSCRIPTION_ID: e.subscriptionId,
          AZURE_RESOURCE_MANAGER_ENDPOINT: e.url,
          NODE_EXTRA_CA_CERTS: e.caFile,
        };
        process.stdout.write(`${SDK_ENV_NAMES.map((n) => exportLine(n, values[n])).join('\n')}\n`);
      } catch (err) {
        if (!(err instanceof NoServerError)) throw err;
        process.stderr.write(`aksemu: ${err.message}\n`);
        process.exitCode = 1;
      }
    });
}

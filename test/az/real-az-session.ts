// A real aksemu server and the real az (Debian 2.45, through the repository's shim) logged in to it, with one
// resource group in eastus: where the real-az tests of one feature start from. close() removes what it made.
import assert from 'node:assert/strict';
import { AZ_SHIM_DIR } from '../../src/cli/az-env.js';
import { removeHome, startTestServer, tempHome, type TestServer } from '../e2e/harness.js';
import { loginRealAz, runRealAz } from './real-az-env.js';

export interface RealAzSession {
  server: TestServer;
  env: NodeJS.ProcessEnv;
  /** The az home: a place for the files a test hands to az. */
  azHome: string;
  close(): Promise<void>;
}

export async function realAzSession(group: string): Promise<RealAzSession> {
  const home = tempHome();
  const azHome = tempHome();
  const server = await startTestServer({ home });
  const env = await loginRealAz(azHome, server, { pythonPath: AZ_SHIM_DIR });
  const r = await runRealAz(env, ['group', 'create', '-l', 'eastus', '-n', group, '-o', 'none']);
  assert.equal(r.code, 0, r.stderr);
  return {
    server,
    env,
    azHome,
    close: async () => {
      await server.close();
      removeHome(home);
      removeHome(azHome);
    },
  };
}

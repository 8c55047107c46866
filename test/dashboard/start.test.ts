// `aksemu start` as a user runs it prints the dashboard's one-time login link, endpoint.json holds the same link,
// and the link signs a browser in (docs/dashboard.md §2).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { https, removeHome, tempHome } from '../e2e/harness.js';

const BIN = fileURLToPath(new URL('../../../bin/aksemu.js', import.meta.url));

test('aksemu start prints the login link, writes it to endpoint.json as dashboardUrl, and the link works once', async () => {
  const home = tempHome();
  const proc = spawn(process.execPath, [BIN, 'start', '--port', '0', '--home', home], { stdio: ['ignore', 'ignore', 'pipe'] });
  const closed = new Promise((resolve) => proc.on('close', resolve));
  try {
    const link = await new Promise<string>((resolve, reject) => {
      let stderr = '';
      const timer = setTimeout(() => reject(new Error(`no dashboard line:\n${stderr}`)), 30_000);
      proc.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /^dashboard: (\S+)$/m.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    const endpoint = JSON.parse(readFileSync(join(home, 'endpoint.json'), 'utf8'));
    assert.equal(endpoint.dashboardUrl, link);
    assert.match(link, new RegExp(`^${endpoint.url}/ui/login\\?token=[A-Za-z0-9_-]{43}$`));
    const server = { url: endpoint.url as string, caPem: readFileSync(endpoint.caFile, 'utf8') };
    const path = link.slice(server.url.length);
    assert.equal((await https(server, 'GET', path)).status, 303);
    assert.equal((await https(server, 'GET', path)).status, 401);
  } finally {
    proc.kill('SIGTERM');
    await closed;
    removeHome(home);
  }
});

// The azure-rest-api-specs examples of managedClusters, agentPools and the Microsoft.Network resources aksemu
// serves, run against one real server (test/spec-examples/run.ts says how one example runs). The test asserts
// that exactly the expected set passes: expected-failures.json lists each example expected to fail with its
// reason; a new pass or a new failure fails the test with the list. AKSEMU_EXAMPLES_UPDATE=1 rewrites the file
// from this run's results; AKSEMU_EXAMPLES_VERBOSE=1 prints every failure with what it got (after a change that makes examples pass, or fail for a reason given in reasons.ts).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeHome, startTestServer, tempHome } from '../e2e/harness.js';
import { ArmClient } from './client.js';
import { loadCases, missingExamples } from './examples.js';
import { reasonFor } from './reasons.js';
import { type Outcome, runCase } from './run.js';

const CONCURRENCY = 4;
const EXPECTED_FILE = fileURLToPath(new URL('../../../test/spec-examples/expected-failures.json', import.meta.url));

function readExpected(): Record<string, string> {
  try {
    return JSON.parse(readFileSync(EXPECTED_FILE, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

function tally(results: Map<string, Outcome>, group: (key: string, outcome: Outcome) => string): string[] {
  const counts = new Map<string, number>();
  for (const [key, outcome] of results) {
    const g = group(key, outcome);
    counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([g, n]) => `${String(n).padStart(4)}  ${g}`);
}

const missing = missingExamples();

// The bound catches a hang, not slowness: the run is CPU-bound (on a shared 2-core machine 44 s at load 8, 98 s
// at load 17, and npm test runs files two at a time).
test('azure-rest-api-specs examples: exactly the expected set passes', { timeout: 240_000, skip: missing ?? false }, async (t) => {
  const home = tempHome();
  const server = await startTestServer({ home });
  const results = new Map<string, Outcome>();
  try {
    const client = new ArmClient(server);
    await client.signIn();
    const cases = loadCases();
    // A few at a time: each case has its own resource groups, and a case mostly waits on the server.
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const i = next++;
        const c = cases[i]!;
        try {
          results.set(c.key, await runCase(client, server.identity.subscriptionId, c, i));
        } catch (err) {
          results.set(c.key, { pass: false, got: `suite error: ${(err as Error).message}` });
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    await server.close();
    removeHome(home);
  }

  const folderOf = (key: string) => key.slice(0, key.lastIndexOf('/', key.lastIndexOf('/') - 1));
  const passed = [...results.values()].filter((o) => o.pass).length;
  t.diagnostic(`spec examples: ${passed} of ${results.size} pass`);
  for (const line of tally(results, (key, o) => `${folderOf(key)}: ${o.pass ? 'pass' : 'fail'}`)) t.diagnostic(line);
  for (const line of tally(new Map([...results].filter(([, o]) => !o.pass)), (k, o) => reasonFor(k, o.got ?? ''))) t.diagnostic(line);

  // AKSEMU_EXAMPLES_VERBOSE=1: every failure with what it got, for finding out why.
  if (process.env.AKSEMU_EXAMPLES_VERBOSE === '1') for (const [key, o] of results) if (!o.pass) t.diagnostic(`${key}: ${o.got}`);

  const actual: Record<string, string> = {};
  for (const [key, o] of [...results].sort((a, b) => (a[0] < b[0] ? -1 : 1))) if (!o.pass) actual[key] = reasonFor(key, o.got ?? '');
  if (process.env.AKSEMU_EXAMPLES_UPDATE === '1') {
    writeFileSync(EXPECTED_FILE, `${JSON.stringify(actual, null, 2)}\n`);
    t.diagnostic(`wrote ${EXPECTED_FILE}`);
    return;
  }
  const expected = readExpected();
  const newFailures = Object.keys(actual).filter((k) => !(k in expected));
  const newPasses = Object.keys(expected).filter((k) => !(k in actual) && results.has(k));
  const gone = Object.keys(expected).filter((k) => !results.has(k));
  const lines = [
    ...newFailures.map((k) => `new failure ${k}: ${results.get(k)?.got}`),
    ...newPasses.map((k) => `new pass ${k} (was expected to fail: ${expected[k]})`),
    ...gone.map((k) => `no such example ${k}`),
  ];
  assert.equal(lines.length, 0, `the examples' results changed (AKSEMU_EXAMPLES_UPDATE=1 rewrites the expected file):\n${lines.join('\n')}`);
});

// `aksemu --help` and every `aksemu <command> --help`: each command and option says what it does in one
// line (commander wraps long descriptions onto indented continuation lines, which this refuses).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aksemu } from '../az/helpers.js';
import { tempHome, removeHome } from '../e2e/harness.js';

const COMMANDS = ['az-env', 'cni', 'cni install', 'plan', 'probe', 'rules', 'sdk-env', 'start'];

/** The entries of the Options: and Commands: sections; a line indented past the entry column is a wrapped one. */
function entries(help: string): { name: string; wrapped: string[] } {
  const lines = help.split('\n');
  const wrapped = lines.filter((l) => /^ {4,}\S/.test(l));
  const commands = lines.slice(lines.indexOf('Commands:') + 1).filter((l) => /^ {2}\S/.test(l));
  return { name: commands.join('\n'), wrapped };
}

test('aksemu --help lists every command on one line each', async () => {
  const home = tempHome();
  try {
    const r = await aksemu(home, ['--help']);
    assert.equal(r.code, 0);
    const { name, wrapped } = entries(r.stdout);
    assert.deepEqual(wrapped, []);
    for (const command of ['az', 'az-env', 'cni', 'plan', 'probe', 'rules', 'sdk-env', 'start']) {
      assert.match(name, new RegExp(`^  ${command} .*\\S{3,}`, 'm'), `${command} is listed with a description`);
    }
  } finally {
    removeHome(home);
  }
});

test('aksemu <command> --help: a one-line description and one line per option', async () => {
  const home = tempHome();
  try {
    for (const command of COMMANDS) {
      const r = await aksemu(home, [...command.split(' '), '--help']);
      assert.equal(r.code, 0, command);
      const [usage, blank, description] = r.stdout.split('\n');
      assert.match(usage!, new RegExp(`^Usage: aksemu ${command} `));
      assert.equal(blank, '');
      assert.ok(description && description.length > 10, `${command}: ${description}`);
      assert.deepEqual(entries(r.stdout).wrapped, [], `${command} --help has wrapped lines`);
    }
  } finally {
    removeHome(home);
  }
});

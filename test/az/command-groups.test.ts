// `aksemu az` loads only the command modules of the group a command line names (commands/index.ts), and
// `aksemu` only the subcommand it names (cli/main.ts): each command must be found under its first word.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMMAND_MODULES, commandsFor } from '../../src/cli/az/commands/index.js';
import { subcommandsFor } from '../../src/cli/main.js';

test('every az command module holds only commands that start with its word', async () => {
  for (const module of COMMAND_MODULES) {
    const commands = await module.load();
    assert.ok(commands.length > 0, module.word);
    for (const command of commands) assert.equal(command.name.split(' ')[0], module.word, command.name);
  }
});

test("a group's commands are loaded for its word; an unknown word or none loads every command, in order", async () => {
  const all = await commandsFor(undefined);
  assert.deepEqual(
    (await commandsFor('nosuchgroup')).map((c) => c.name),
    all.map((c) => c.name),
  );
  for (const word of new Set(COMMAND_MODULES.map((m) => m.word))) {
    assert.deepEqual(
      (await commandsFor(word)).map((c) => c.name),
      all.filter((c) => c.name.split(' ')[0] === word).map((c) => c.name),
    );
  }
  assert.ok(all.some((c) => c.name === 'aks create'));
});

test('aksemu registers only the subcommand named first, else all of them', () => {
  assert.deepEqual(subcommandsFor(['az', 'aks', 'list']), ['az']);
  assert.deepEqual(subcommandsFor(['cni', 'install']), ['cni']);
  assert.deepEqual(subcommandsFor(['dashboard']), ['dashboard']);
  for (const argv of [[], ['--help'], ['help', 'az'], ['nosuch']]) {
    assert.deepEqual(subcommandsFor(argv), ['az', 'az-env', 'cni', 'dashboard', 'plan', 'probe', 'rules', 'sdk-env', 'start']);
  }
});

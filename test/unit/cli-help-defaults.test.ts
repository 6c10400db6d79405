import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main';

/**
 * Issue 46: help read `port to listen on (default 8888) (default: 8888)`: an option whose
 * description says its default and that also gives commander one, which commander prints again.
 * Each option says its default once.
 */

function commands(command: Command, path: string[] = []): [string, Command][] {
  return [
    [path.join(' '), command],
    ...command.commands.flatMap((sub) => commands(sub, [...path, sub.name()])),
  ];
}

test('no option says its default twice in help', () => {
  const doubled: string[] = [];
  for (const [name, command] of commands(buildProgram())) {
    const help = command.createHelp();
    for (const option of command.options) {
      const shown = help.optionDescription(option);
      const saysDefault = /\bdefault\b/i.test(option.description ?? '');
      const commanderAdds = shown.includes('(default:') && !(option.description ?? '').includes('(default:');
      if (saysDefault && commanderAdds) doubled.push(`${name} ${option.long}: ${shown}`);
    }
  }
  assert.deepEqual(doubled, []);
});

test('the defaults themselves are unchanged', () => {
  const program = buildProgram();
  const codec = program.commands.find((command) => command.name() === 'codec-server');
  const options = codec?.opts();
  assert.equal(options?.port, 8888);
  assert.deepEqual(options?.uiOrigin, []);
});

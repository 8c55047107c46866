// `aksemu rules`: the rule table as users read it — id, code, where it comes from, target and message template.
import { type Command, Option } from 'commander';
import { RULES } from '../aks/rules.js';

export function registerRules(program: Command): void {
  program
    .command('rules')
    .description('List the AKS networking rules aksemu enforces, with codes and sources')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['json', 'table']).default('table'))
    .action((flags: { output: 'json' | 'table' }) => {
      const rows = RULES.map(({ id, code, severity, source, ref, target, message, note, phases }) => ({
        id,
        code,
        severity,
        source,
        ref,
        target,
        message,
        phases,
        ...(note ? { note } : {}),
      }));
      if (flags.output === 'json') {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      for (const r of rows) {
        process.stdout.write(`${r.id.padEnd(5)} ${r.code} [${r.source}] ${r.target}\n      ${r.message}\n`);
        if (r.note) process.stdout.write(`      note: ${r.note}\n`);
      }
    });
}

// az bicep build: the Bicep file compiled to ARM JSON by aksemu's compiler (src/templates/bicep), written
// beside the file as <name>.json (or --outdir/--outfile), or printed with --stdout, as az does with the
// Bicep CLI. The JSON is what `aksemu az deployment group create -f x.bicep` sends, so the same template
// can be deployed with the real az (`az deployment group create -f x.json`).
import { writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { compileBicepFile } from '../../../templates/bicep/compile.js';
import { BicepError } from '../../../templates/bicep/diagnostics.js';
import { flag, str } from '../args.js';
import type { CommandDef } from '../command.js';
import { AzCliError } from '../errors.js';

/** The template of a .bicep file, or az's error with Bicep's diagnostic line. */
export function compileBicepForAz(file: string): Record<string, unknown> {
  try {
    return compileBicepFile(file);
  } catch (err) {
    if (err instanceof BicepError) throw new AzCliError(err.format(file));
    throw err;
  }
}

export const bicepCommands: CommandDef[] = [
  {
    name: 'bicep build',
    help: 'Build a Bicep file.',
    args: [
      { dest: 'file', options: ['--file', '-f'], required: true, help: 'The path to the Bicep file to build in the file system.' },
      { dest: 'outdir', options: ['--outdir'], help: 'When set, saves the output at the specified directory.' },
      { dest: 'outfile', options: ['--outfile'], help: 'When set, saves the output as the specified file path.' },
      { dest: 'stdout', options: ['--stdout'], type: 'flag', help: 'When set, prints all output to stdout instead of corresponding files.' },
      { dest: 'noRestore', options: ['--no-restore'], type: 'flag', help: 'When set, builds the bicep file without restoring external modules.' },
    ],
    async run(_ctx, args) {
      const file = str(args, 'file')!;
      if (flag(args, 'stdout') && (str(args, 'outdir') !== undefined || str(args, 'outfile') !== undefined)) {
        throw new AzCliError('--stdout cannot be used together with --outdir or --outfile');
      }
      const text = `${JSON.stringify(compileBicepForAz(file), null, 2)}\n`;
      if (flag(args, 'stdout')) {
        process.stdout.write(text);
        return undefined;
      }
      const name = `${basename(file, extname(file))}.json`;
      const target = str(args, 'outfile') ?? join(str(args, 'outdir') ?? dirname(file), name);
      try {
        writeFileSync(target, text);
      } catch (err) {
        throw new AzCliError(`Could not write '${target}': ${err instanceof Error ? err.message : String(err)}`);
      }
      return undefined;
    },
  },
];

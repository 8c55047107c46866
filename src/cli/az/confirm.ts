// az's prompt_y_n for commands with confirmation=True (delete): without a terminal it refuses
// with a warning, as az 2.45 does (docs/clients.md §3.8).
import { AzCliError } from './errors.js';

interface PromptIO {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
  warn(message: string): void;
}

export async function confirmOrCancel(io: PromptIO, message: string, yes: boolean): Promise<void> {
  if (yes) return;
  if (!io.input.isTTY) {
    io.warn('Unable to prompt for confirmation as no tty available. Use --yes.');
    throw new AzCliError('Operation cancelled.');
  }
  // readline is loaded only to ask: every other command's process skips its modules (docs/performance.md §5.2).
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: io.input, output: io.output });
  try {
    for (;;) {
      const answer = (await rl.question(`${message} (y/n): `)).trim().toLowerCase();
      if (answer === 'y' || answer === 'yes') return;
      if (answer === 'n' || answer === 'no') throw new AzCliError('Operation cancelled.');
      io.output.write('Please enter y or n.\n');
    }
  } finally {
    rl.close();
  }
}

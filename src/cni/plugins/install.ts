// A node's copy of one of aksemu's plugins: /opt/cni/bin/<type> under the node's root is a small shell script
// that runs the protocol driver (main.ts) with this Node.js and the node's root in AKSEMU_NODE_ROOT. The CNI
// runtime scrubs a plugin's environment to PATH + CNI_* (exec.ts), so the node's root travels in the script.
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The protocol driver next to this module (dist/src/cni/plugins/main.js). */
export const PLUGIN_MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

/** A word for /bin/sh: single-quoted, each `'` written as `'\''`. */
export function shellQuote(word: string): string {
  return `'${word.split("'").join("'\\''")}'`;
}

/** The wrapper's text: `exec node main.js <type> "$@"` with the node's root set. */
export function pluginWrapper(nodeRoot: string, type: string, main: string = PLUGIN_MAIN): string {
  return `#!/bin/sh\nAKSEMU_NODE_ROOT=${shellQuote(nodeRoot)} exec ${shellQuote(process.execPath)} ${shellQuote(main)} ${shellQuote(type)} "$@"\n`;
}

/** Writes the wrapper to `file` (write + rename, mode 0755: a runtime never runs half a script). */
export function installPluginWrapper(file: string, nodeRoot: string, type: string, main: string = PLUGIN_MAIN): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = join(dirname(file), `.${type}.aksemu-${process.pid}`);
  writeFileSync(tmp, pluginWrapper(nodeRoot, type, main), { mode: 0o755 });
  chmodSync(tmp, 0o755);
  renameSync(tmp, file);
}

/** Installs aksemu's plugin `type` into the node's /opt/cni/bin; returns the file written. */
export function installPlugin(nodeRoot: string, type: string, main: string = PLUGIN_MAIN): string {
  const file = join(nodeRoot, 'opt', 'cni', 'bin', type);
  installPluginWrapper(file, nodeRoot, type, main);
  return file;
}

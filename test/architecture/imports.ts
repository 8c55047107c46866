// The relative imports of src/ as the architecture tests read them: every static `import … from`, `import '…'`,
// `export … from` and literal `import('…')`, type-only ones included (they are dependencies of the design, if
// not of the running code), each with the file and line it is on and the file it names.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** dist/test/architecture/ → the repository root. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const SRC = join(ROOT, 'src');

export interface Import {
  /** Repository-relative, with the line: `src/cluster/server.ts:10`. */
  at: string;
  /** The importing file and the imported one, as absolute paths of .ts sources. */
  file: string;
  target: string;
}

/** Every .ts file under dir. */
export function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative imports in one file's text. */
export function importsOf(file: string, text: string): Import[] {
  // preProcessFile finds import/export declarations (type-only included) and literal dynamic imports.
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .filter((ref) => ref.fileName.startsWith('.'))
    .map((ref) => ({
      at: `${relative(ROOT, file)}:${text.slice(0, ref.pos).split('\n').length}`,
      file,
      target: resolve(dirname(file), ref.fileName).replace(/\.js$/, '.ts'),
    }));
}

/** Every relative import made by the files under dir. */
export function importsUnder(dir: string): Import[] {
  return sources(dir).flatMap((file) => importsOf(file, readFileSync(file, 'utf8')));
}

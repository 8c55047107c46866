// The browser code, served as files (docs/dashboard.md §1): the modules tsconfig.ui.json compiles into dist/ui/, and
// the stylesheet from the source tree. A name is checked before it touches the file system: lower-case letters,
// digits, '-' and '/', ending .js or .css, no '..' and no empty segment.
import { readFile } from 'node:fs/promises';

const NAME = /^[a-z0-9-/]+\.(js|css)$/;
const TYPES = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' } as const;

/** dist/src/dashboard/assets.js → dist/ui/ and src/dashboard/ui/ */
const COMPILED = new URL('../../ui/', import.meta.url);
const SOURCES = new URL('../../../src/dashboard/ui/', import.meta.url);

export interface Asset {
  type: string;
  body: Buffer;
}

/** The asset at `name` (the path after /ui/assets/), or undefined when there is none or the name is not allowed. */
export async function readAsset(name: string): Promise<Asset | undefined> {
  const ext = NAME.exec(name)?.[1] as 'js' | 'css' | undefined;
  if (ext === undefined || name.split('/').some((s) => s === '' || s === '.' || s === '..')) return undefined;
  const url = new URL(name, ext === 'css' ? SOURCES : COMPILED);
  try {
    return { type: TYPES[ext], body: await readFile(url) };
  } catch {
    return undefined;
  }
}

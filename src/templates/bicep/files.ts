// The files a Bicep compilation reads: the file compiled, its modules and imports (paths relative to
// the file that names them, '/' as separator as Bicep requires), and the files of loadTextContent,
// loadJsonContent and loadFileAsBase64, read at compile time. Reads are bounded: how many files, how
// large each is (Bicep's own limits for the load functions), so no input makes a compilation unbounded.
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LIMITS } from '../limits.js';
import { BicepError, tooLarge } from './diagnostics.js';

/** Where the compiler reads files; tests and callers may give their own. */
export interface SourceFiles {
  /** The bytes of the file, at most `limit` of them (more is an error the caller reports). */
  read(path: string, limit: number): Buffer;
}

export const diskFiles: SourceFiles = {
  read(path, limit) {
    const size = statSync(path).size;
    if (size > limit) throw new RangeError(`size ${size}`);
    return readFileSync(path);
  },
};

// Bicep's limits for the load functions (LanguageConstants.MaxLiteralCharacterLimit, MaxJsonFileCharacterLimit).
const MAX_LITERAL_CHARACTERS = 131_072;
const MAX_JSON_CHARACTERS = 1_048_576;
const MAX_BASE64_BYTES = (MAX_LITERAL_CHARACTERS / 4) * 3;

type At = { line: number; column: number };

function fail(at: At, code: string, message: string): never {
  throw new BicepError(code, message, at.line, at.column);
}

/** A path as Bicep takes it: relative, '/' only, no empty name. */
export function resolveRelative(from: string, path: string, at: At): string {
  if (path.includes('\\')) fail(at, 'BCP098', 'The specified file path contains a "\\" character. Use "/" instead as the directory separator character.');
  if (path.length === 0) fail(at, 'BCP051', 'The beginning of the path must be a valid file name or folder.');
  if (/^[a-z][\w+.-]*:/i.test(path) || path.startsWith('br/') || path.startsWith('ts/'))
    fail(at, 'BCP091', `An error occurred reading file. "${path}" names a registry or template spec module; aksemu compiles local files only.`);
  return resolve(dirname(from), path);
}

/** Counts the files one compilation reads. */
export class FileBudget {
  private count = 0;

  constructor(readonly files: SourceFiles) {}

  /** A Bicep source file (module or import target). */
  readSource(path: string, at: At): string {
    return this.readLimited(path, at, LIMITS.bicepFileBytes, 'bytes').toString('utf8');
  }

  private readLimited(path: string, at: At, limit: number, unit: string): Buffer {
    if (++this.count > LIMITS.bicepFiles) tooLarge(at, `This compilation reads more than ${LIMITS.bicepFiles} files`);
    try {
      return this.files.read(path, limit);
    } catch (err) {
      if (err instanceof RangeError) fail(at, 'BCP184', `File '${path}' exceeded maximum size of ${limit} ${unit}.`);
      const code = (err as { code?: string }).code;
      if (code === 'ENOENT') fail(at, 'BCP091', `An error occurred reading file. Could not find file '${path}'.`);
      fail(at, 'BCP091', `An error occurred reading file. ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** loadTextContent(path): the text (utf-8), at most Bicep's literal size. */
  text(path: string, at: At): string {
    const text = this.readLimited(path, at, MAX_LITERAL_CHARACTERS * 4, 'bytes').toString('utf8');
    if (text.length > MAX_LITERAL_CHARACTERS) fail(at, 'BCP184', `File '${path}' exceeded maximum size of ${MAX_LITERAL_CHARACTERS} characters.`);
    return text;
  }

  /** loadJsonContent(path): the parsed JSON. */
  json(path: string, at: At): unknown {
    const text = this.readLimited(path, at, MAX_JSON_CHARACTERS * 4, 'bytes').toString('utf8');
    if (text.length > MAX_JSON_CHARACTERS) fail(at, 'BCP184', `File '${path}' exceeded maximum size of ${MAX_JSON_CHARACTERS} characters.`);
    try {
      return JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (err) {
      fail(at, 'BCP186', `Unable to parse literal JSON value. Please ensure that it is well-formed. ${err instanceof Error ? err.message : ''}`.trim());
    }
  }

  /** loadFileAsBase64(path). */
  base64(path: string, at: At): string {
    return this.readLimited(path, at, MAX_BASE64_BYTES, 'bytes').toString('base64');
  }
}

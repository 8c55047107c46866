// How deep a JSON body nests, found before anything walks it recursively: JSON.parse of a million nested
// arrays blocks the event loop for seconds and a recursive-descent parser overflows the stack, so the text
// is scanned first; values built or decoded in process are checked without recursion. The ARM front door
// and the cluster API each answer a body found too deep in their own words and with their own bound.

/** The first container past the bound: its path (`a.b[2]`), and for text where it opens. */
interface TooDeep {
  path: string;
  line?: number;
  column?: number;
}

interface Frame {
  array: boolean;
  /** The member being read (objects) or the element's index (arrays). */
  key: string;
  index: number;
}

function pathOf(frames: readonly Frame[]): string {
  let path = '';
  for (const f of frames) {
    if (f.array) path += `[${f.index}]`;
    else if (f.key !== '') path += path === '' ? f.key : `.${f.key}`;
  }
  return path;
}

/**
 * Where JSON text (comments, single quotes and bare member names allowed, as template bodies have them)
 * first opens more than maxDepth nested objects and arrays; undefined when it never does.
 */
export function textTooDeep(text: string, maxDepth: number): TooDeep | undefined {
  const frames: Frame[] = [];
  let line = 1;
  let lineStart = 0;
  let lastName = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\n') {
      line++;
      lineStart = i + 1;
    } else if (ch === '"' || ch === "'") {
      let end = i + 1;
      while (end < text.length && text[end] !== ch) {
        if (text[end] === '\\') end++;
        else if (text[end] === '\n') {
          line++;
          lineStart = end + 1;
        }
        end++;
      }
      lastName = text.slice(i + 1, end);
      i = end;
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 1;
      for (let j = i; j < stop; j++) {
        if (text[j] === '\n') {
          line++;
          lineStart = j + 1;
        }
      }
      i = stop;
    } else if (ch === '{' || ch === '[') {
      if (frames.length >= maxDepth) return { path: pathOf(frames), line, column: i - lineStart + 1 };
      frames.push({ array: ch === '[', key: '', index: 0 });
    } else if (ch === '}' || ch === ']') {
      frames.pop();
    } else if (ch === ':') {
      const top = frames[frames.length - 1];
      if (top && !top.array) top.key = lastName;
    } else if (ch === ',') {
      const top = frames[frames.length - 1];
      if (top?.array) top.index++;
    } else if (/[A-Za-z_$]/.test(ch)) {
      // A bare word: a member name (JSONC) or true/false/null.
      let end = i + 1;
      while (end < text.length && /[\w$]/.test(text[end]!)) end++;
      lastName = text.slice(i, end);
      i = end - 1;
    }
  }
  return undefined;
}

interface Pending {
  value: unknown;
  depth: number;
  /** Where the value sits: its container's entry and its member name or index; the path is built only when needed. */
  up?: Pending;
  key?: string | number;
}

function pathTo(entry: Pending): string {
  let path = '';
  for (let e: Pending | undefined = entry; e?.up !== undefined; e = e.up) {
    const segment = typeof e.key === 'number' ? `[${e.key}]` : String(e.key);
    path = path === '' || path.startsWith('[') ? `${segment}${path}` : `${segment}.${path}`;
  }
  return path;
}

/**
 * Whether value nests more than `room` containers deep: recursion at most room + 1 frames deep (the bound, not the
 * value, sets the stack), and nothing allocated.
 */
function deeper(v: unknown, room: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (room === 0) return true;
  if (Array.isArray(v)) {
    for (const item of v) if (deeper(item, room - 1)) return true;
    return false;
  }
  for (const k in v) if (Object.hasOwn(v, k) && deeper((v as Record<string, unknown>)[k], room - 1)) return true;
  return false;
}

/**
 * The same bound on a parsed value; the path is that of the first container too deep. A value that fits (nearly every
 * one) is walked once without allocating; only one too deep is walked again, without recursion, for its path.
 */
export function valueTooDeep(value: unknown, maxDepth: number): TooDeep | undefined {
  if (!deeper(value, maxDepth)) return undefined;
  const pending: Pending[] = [{ value, depth: 1 }];
  while (pending.length > 0) {
    const entry = pending.pop()!;
    const v = entry.value;
    if (typeof v !== 'object' || v === null) continue;
    if (entry.depth > maxDepth) return { path: pathTo(entry) };
    if (Array.isArray(v)) v.forEach((item, i) => pending.push({ value: item, depth: entry.depth + 1, up: entry, key: i }));
    else for (const [k, item] of Object.entries(v)) pending.push({ value: item, depth: entry.depth + 1, up: entry, key: k });
  }
  return undefined;
}

// Building the page with the DOM alone: no HTML strings (nothing the server sends is parsed as markup), no inline
// style (the dashboard's Content-Security-Policy forbids it; classes from app.css and the CSSOM instead).

export type Child = Node | string | number | null | undefined | false;

/** An element with attributes (undefined ones left out) and children (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** A section with a heading of the given level: the page's outline that screen readers list. */
export function section(title: string, level: 2 | 3, ...children: Child[]): HTMLElement {
  const heading = h(level === 2 ? 'h2' : 'h3', {}, title);
  const el = h('section', {}, heading, ...children);
  // A table captioned as its section is headed keeps the caption for screen readers only.
  for (const c of el.querySelectorAll('caption')) if (c.textContent === title) c.classList.add('sr-only');
  return el;
}

export interface Column<T> {
  title: string;
  cell: (row: T) => Child;
  /** The row's header cell (scope="row"): the one that names the row. */
  key?: boolean;
  numeric?: boolean;
}

/** A data table: a caption, column headers with scope, a row header, and a stable test id per row. */
export function table<T>(caption: string, columns: Column<T>[], rows: readonly T[], rowAttrs?: (row: T) => Record<string, string>): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, `${caption}: none.`);
  const head = h('tr', {}, ...columns.map((c) => h('th', { scope: 'col', class: c.numeric ? 'num' : undefined }, c.title)));
  const body = rows.map((row) =>
    h(
      'tr',
      rowAttrs?.(row) ?? {},
      ...columns.map((c) => h(c.key ? 'th' : 'td', { scope: c.key ? 'row' : undefined, class: c.numeric ? 'num' : undefined }, c.cell(row))),
    ),
  );
  return h('div', { class: 'table-wrap' }, h('table', {}, h('caption', {}, caption), h('thead', {}, head), h('tbody', {}, ...body)));
}

/** A definition list of label → value, the values' absent ones shown as a dash. */
export function facts(pairs: Array<[string, Child]>): HTMLElement {
  const dl = h('dl', { class: 'facts' });
  for (const [label, value] of pairs) append(dl, [h('dt', {}, label), h('dd', {}, value === undefined || value === null || value === '' ? '—' : value)]);
  return dl;
}

/** A link to a hash route. */
export function link(route: string, text: string): HTMLAnchorElement {
  return h('a', { href: `#${route}` }, text);
}

/** A status word with a class per value, so colour is never the only cue (the word is always there). */
export function badge(text: string | undefined): HTMLElement {
  const word = text ?? 'Unknown';
  return h('span', { class: `badge badge-${word.toLowerCase().replace(/[^a-z]/g, '')}` }, word);
}

/** The last segment of an ARM id: its resource name. */
export function nameOf(id: string): string {
  return id.split('/').filter(Boolean).pop() ?? id;
}

/** The resource group of an ARM id, or ''. */
export function groupOf(id: string): string {
  const m = /\/resourcegroups\/([^/]+)/i.exec(id);
  return m ? decodeURIComponent(m[1]) : '';
}

/** A count as the CLI writes it: 1,550. */
export const num = (n: number | undefined): string => (n === undefined ? '—' : n.toLocaleString('en-US'));

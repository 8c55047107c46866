// The dashboard's browser side: hash routes → pages, one live feed, and re-rendering in place (no reload) when a
// change names something on screen. docs/dashboard-ui.md §4 lists the pages.
import { ApiError } from './api.js';
import { h } from './dom.js';
import { openFeed } from './live.js';
import type { Page } from './page.js';
import { clusterPage } from './pages/cluster.js';
import { groupPage } from './pages/group.js';
import { overviewPage } from './pages/overview.js';
import { planPage } from './pages/plan.js';
import { vnetPage } from './pages/vnet.js';
import type { Change } from './types.js';

function route(hash: string): Page | undefined {
  const path = hash.replace(/^#/, '') || '/';
  const [, kind = '', ...rest] = path.split('/');
  let arg = '';
  try {
    arg = decodeURIComponent(rest.join('/'));
  } catch {
    return undefined;
  }
  switch (kind) {
    case '':
      return overviewPage();
    case 'group':
      return arg ? groupPage(arg) : undefined;
    case 'vnet':
      return arg ? vnetPage(arg) : undefined;
    case 'cluster':
      return arg ? clusterPage(arg) : undefined;
    case 'plan':
      return planPage();
    default:
      return undefined;
  }
}

const main = document.getElementById('app') ?? document.body.appendChild(h('main', { id: 'app' }));
const heading = h('h1', { tabindex: '-1' }, 'aksemu');
const content = h('div', { class: 'page' });
const feedState = h('span', { 'data-testid': 'feed-state' }, 'connecting');
const updated = h('span', { 'data-testid': 'last-update' }, '');
const status = h('p', { class: 'status', role: 'status' }, 'Live updates: ', feedState, ' ', updated);
const header = h(
  'header',
  { class: 'top' },
  h('a', { class: 'brand', href: '#/' }, 'aksemu'),
  h('nav', { 'aria-label': 'Dashboard' }, h('ul', {}, h('li', {}, h('a', { href: '#/' }, 'Overview')), h('li', {}, h('a', { href: '#/plan' }, 'Plan')))),
  status,
);
main.before(header);
main.replaceChildren(heading, content);

let page: Page | undefined;
let generation = 0;
let busy = false;
let again = false;
let renders = 0;

function errorView(e: unknown): HTMLElement {
  if (e instanceof ApiError && e.status === 401) {
    return h(
      'div',
      { class: 'signin', role: 'alert' },
      h('p', {}, e.message),
      h('p', {}, 'Run ', h('code', {}, 'aksemu dashboard'), ' for a new sign-in link.'),
    );
  }
  const text = e instanceof ApiError ? `${e.code}: ${e.message}` : String(e);
  return h('p', { class: 'error-text', role: 'alert', 'data-testid': 'page-error' }, text);
}

/** Draws the page on screen; a live refresh keeps the focused element (by its data-focus-key) and the scroll. */
async function draw(live: boolean): Promise<void> {
  if (!page) return;
  if (busy) {
    again = true;
    return;
  }
  busy = true;
  const mine = generation;
  document.body.dataset.state = live ? 'refreshing' : 'loading';
  let view: Node;
  try {
    view = await page.render();
  } catch (e) {
    view = errorView(e);
  }
  busy = false;
  if (mine !== generation) return void draw(false);
  const focusKey = live ? (document.activeElement as HTMLElement | null)?.getAttribute?.('data-focus-key') : null;
  const scroll = window.scrollY;
  content.replaceChildren(view);
  renders++;
  document.body.dataset.renders = String(renders);
  document.body.dataset.state = 'ready';
  if (live) {
    window.scrollTo(0, scroll);
    if (focusKey) content.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(focusKey)}"]`)?.focus();
    updated.textContent = `(updated ${new Date().toLocaleTimeString('en-GB')})`;
  }
  if (again) {
    again = false;
    void draw(true);
  }
}

function navigate(): void {
  generation++;
  again = false;
  page = route(location.hash);
  const title = page?.title ?? 'Not found';
  heading.textContent = title;
  document.title = `${title} · aksemu`;
  if (!page) {
    content.replaceChildren(h('p', { role: 'alert' }, 'No such page. ', h('a', { href: '#/' }, 'Back to the overview.')));
    return;
  }
  // Move focus to the new page's heading, as a page load would, so keyboard and screen-reader users start there.
  if (document.activeElement && document.activeElement !== document.body) heading.focus();
  void draw(false);
}

// Changes arrive at most every 100 ms from the server; a page re-fetches at most every 250 ms.
let timer: number | undefined;
function onChange(change: Change): void {
  if (!page?.wants(change)) return;
  if (timer !== undefined) return;
  timer = window.setTimeout(() => {
    timer = undefined;
    void draw(true);
  }, 250);
}

window.addEventListener('hashchange', navigate);
openFeed(onChange, (s) => {
  feedState.textContent = s;
});
navigate();

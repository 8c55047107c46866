// The address map of one subnet (docs/dashboard-ui.md §5): every address a cell when the subnet is a /20 or smaller
// (the server says so with `cells`), else its runs as proportional bars; a legend with the counts; the owner of the
// address under the pointer or the keyboard focus; and the runs as a table, the map's text alternative.
// Keyboard: the map is one tab stop (roving tabindex); arrows move by one address or one row, Home/End to the row's
// ends, Ctrl+Home/End to the subnet's first and last address, PageUp/PageDown by eight rows.
import { h, num, table } from './dom.js';
import { KINDS, type Kind, type Run, type SubnetMap } from './types.js';

export const KIND_LABEL: Record<Kind, string> = {
  reserved: 'Azure-reserved',
  node: 'Node',
  pod: 'Pod IP (pre-allocated)',
  vm: 'VM',
  lb: 'Load balancer frontend',
  other: 'Other',
  free: 'Free',
};

/** The active (tab-stop) position of each map, kept across live re-renders so focus does not jump. */
const active = new Map<string, number>();

interface Slot {
  /** The address, or for a bar the run's range. */
  label: string;
  run: Run;
}

function ipv4ToInt(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0;
  for (const p of parts) {
    const o = Number(p);
    if (!/^\d{1,3}$/.test(p) || o > 255) return undefined;
    v = v * 256 + o;
  }
  return v;
}

function intToIpv4(v: number): string {
  return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
}

/** One slot per address, from the runs (which cover the subnet in order). */
function cellSlots(runs: readonly Run[]): Slot[] {
  const slots: Slot[] = [];
  for (const run of runs) {
    const first = ipv4ToInt(run.first);
    for (let i = 0; i < run.count && slots.length < 4096; i++) slots.push({ label: first === undefined ? `${run.first} + ${i}` : intToIpv4(first + i), run });
  }
  return slots;
}

export function describe(slot: Slot): string {
  const { run } = slot;
  const what = KIND_LABEL[run.kind] ?? run.kind;
  return run.owner ? `${slot.label} — ${what}: ${run.owner}` : `${slot.label} — ${what}`;
}

function columnsFor(total: number): number {
  if (total <= 16) return total;
  if (total <= 256) return 32;
  return 64;
}

export function legend(counts: SubnetMap['counts'], total: number): HTMLElement {
  return h(
    'ul',
    { class: 'legend', 'aria-label': 'Addresses by kind' },
    ...KINDS.map((k) =>
      h(
        'li',
        {},
        h('span', { class: `swatch k-${k}`, 'aria-hidden': 'true' }),
        `${KIND_LABEL[k]} `,
        h('strong', { 'data-testid': `map-count-${k}` }, String(counts[k] ?? 0)),
      ),
    ),
    h('li', { class: 'legend-total' }, 'Total ', h('strong', { 'data-testid': 'map-count-total' }, String(total))),
  );
}

function runsTable(map: SubnetMap): HTMLElement {
  const shown = map.runs.slice(0, 1000);
  return h(
    'details',
    { class: 'runs' },
    h('summary', {}, `Address runs as a table (${num(map.runs.length)} runs)`),
    table(
      `Address runs of ${map.addressPrefix}`,
      [
        { title: 'First', cell: (r: Run) => r.first, key: true },
        { title: 'Last', cell: (r) => r.last },
        { title: 'Count', cell: (r) => num(r.count), numeric: true },
        { title: 'Kind', cell: (r) => KIND_LABEL[r.kind] ?? r.kind },
        { title: 'Owner', cell: (r) => r.owner },
      ],
      shown,
      (r) => ({ 'data-kind': r.kind }),
    ),
    map.runs.length > shown.length ? h('p', {}, `The first ${shown.length} runs of ${num(map.runs.length)}.`) : null,
  );
}

/** The map of one subnet, with its legend, owner line and text alternative. */
export function addressMap(map: SubnetMap, name: string): HTMLElement {
  const cells = map.cells;
  const slots: Slot[] = cells ? cellSlots(map.runs) : map.runs.map((run) => ({ label: run.first === run.last ? run.first : `${run.first}–${run.last}`, run }));
  const cols = cells ? columnsFor(slots.length) : Math.max(1, slots.length);
  const owner = h('p', { class: 'map-owner', 'data-testid': 'map-owner', 'aria-live': 'polite' }, 'Point at or focus an address to see its owner.');
  const grid = h('div', {
    role: 'grid',
    class: cells ? `map-grid cols-${cols}` : 'map-bars',
    'aria-label': cells ? `Address map of ${name}: one cell per address, ${cols} per row` : `Address map of ${name}: runs of addresses, widths proportional`,
    'aria-describedby': undefined,
  });
  const items: HTMLElement[] = [];
  let row: HTMLElement | undefined;
  slots.forEach((slot, i) => {
    if (i % cols === 0 || !row) {
      row = h('div', { role: 'row', class: 'map-row' });
      grid.appendChild(row);
    }
    const el = h('div', {
      role: 'gridcell',
      class: `${cells ? 'cell' : 'bar'} k-${slot.run.kind}`,
      tabindex: '-1',
      title: describe(slot),
      'aria-label': describe(slot),
      'data-index': String(i),
      'data-kind': slot.run.kind,
    });
    // Bars are as wide as their share of the subnet (a few pixels at least, so even one address can be reached).
    if (!cells) el.style.flexGrow = String(Math.max(slot.run.count, 1));
    row.appendChild(el);
    items.push(el);
  });

  const key = map.id.toLowerCase();
  let current = Math.min(active.get(key) ?? 0, Math.max(items.length - 1, 0));
  const show = (i: number) => {
    owner.textContent = describe(slots[i]);
  };
  const activate = (i: number, focus: boolean) => {
    const prev = items[current];
    if (prev) {
      prev.tabIndex = -1;
      prev.removeAttribute('data-focus-key');
    }
    current = i;
    active.set(key, i);
    const el = items[i];
    el.tabIndex = 0;
    el.setAttribute('data-focus-key', `map:${key}:${i}`);
    if (focus) el.focus();
    show(i);
  };
  if (items.length > 0) {
    items[current].tabIndex = 0;
    items[current].setAttribute('data-focus-key', `map:${key}:${current}`);
  }

  const indexOf = (target: EventTarget | null): number | undefined => {
    const el = (target as HTMLElement | null)?.closest?.('[data-index]');
    return el ? Number(el.getAttribute('data-index')) : undefined;
  };
  grid.addEventListener('mouseover', (e) => {
    const i = indexOf(e.target);
    if (i !== undefined) show(i);
  });
  grid.addEventListener('focusin', (e) => {
    const i = indexOf(e.target);
    if (i !== undefined && i !== current) activate(i, false);
    else if (i !== undefined) show(i);
  });
  grid.addEventListener('click', (e) => {
    const i = indexOf(e.target);
    if (i !== undefined) activate(i, true);
  });
  grid.addEventListener('keydown', (e) => {
    const last = items.length - 1;
    const col = current % cols;
    let next: number | undefined;
    switch (e.key) {
      case 'ArrowRight':
        next = current + 1;
        break;
      case 'ArrowLeft':
        next = current - 1;
        break;
      case 'ArrowDown':
        next = current + cols;
        break;
      case 'ArrowUp':
        next = current - cols;
        break;
      case 'Home':
        next = e.ctrlKey ? 0 : current - col;
        break;
      case 'End':
        next = e.ctrlKey ? last : Math.min(current - col + cols - 1, last);
        break;
      case 'PageDown':
        next = Math.min(current + 8 * cols, last);
        break;
      case 'PageUp':
        next = Math.max(current - 8 * cols, 0);
        break;
      default:
        return;
    }
    e.preventDefault();
    if (next >= 0 && next <= last) activate(next, true);
  });

  return h(
    'div',
    { class: 'address-map', 'data-testid': 'subnet-map', 'data-subnet-id': map.id, 'data-total': String(map.total) },
    legend(map.counts, map.total),
    grid,
    owner,
    runsTable(map),
  );
}

// `aksemu plan --format svg`: the plan as a picture. The node subnet's fill as bars (the nodes asked for, during
// an upgrade with surge, at the autoscaler's maximum, at the most nodes the design allows), the maxima, every
// error with its code, and the suggestions. Self-contained SVG (no font, script or link), with a <title> and
// <desc> for screen readers; every figure drawn is also written as text.
import type { PlanResult } from './plan.js';
import type { PlanSuggestion } from './plan-suggestions.js';
import type { Problem } from './types.js';

export type PlanOutcome = (PlanResult | { valid: false; errors: Problem[]; warnings: Problem[] }) & { suggestions?: PlanSuggestion[] };

const WIDTH = 960;
const MARGIN = 24;
const LABEL = 250;
const BAR = WIDTH - 2 * MARGIN - LABEL - 210;
const LINE = 18;
const WRAP = 120;

/** A count as the plan's table and picture write it: 1,550. */
export const n = (v: number): string => v.toLocaleString('en-US');

/** A suggestion's flags as a user types them. */
export const flagsText = (s: PlanSuggestion): string => s.flags.map(([f, v]) => `${f} ${v}`).join(' ');
const percent = (share: number): string => `${(share * 100).toLocaleString('en-US', { maximumSignificantDigits: 3 })}%`;

/** XML text: the five characters XML reserves, and nothing a parser would refuse (control characters). */
export function xmlText(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Lines of at most `width` characters, broken at spaces where there is one. */
function wrap(text: string, width = WRAP): string[] {
  const lines: string[] = [];
  let rest = text;
  while (rest.length > width) {
    const at = rest.lastIndexOf(' ', width);
    const cut = at > width / 2 ? at : width;
    lines.push(rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  lines.push(rest);
  return lines;
}

interface Bar {
  label: string;
  ips: number;
}

/** The bars of the node subnet: each a count of addresses against the subnet's usable ones. */
function bars(r: PlanResult): Bar[] {
  const c = r.capacity!;
  const pool = r.agentPoolProfiles[0];
  const out: Bar[] = [];
  const now = pool ? (pool.count ?? 0) * c.ipsPerNode : c.ipsRequired;
  out.push({ label: `${n(pool?.count ?? 0)} node(s) as asked`, ips: now });
  if (r.upgrade) out.push({ label: `during an upgrade (+${n(r.upgrade.surgeNodes)} surge)`, ips: r.upgrade.ipsRequired });
  if (pool?.enableAutoScaling && pool.maxCount !== undefined)
    out.push({ label: `at the autoscaler's max (${n(pool.maxCount)})`, ips: pool.maxCount * c.ipsPerNode });
  out.push({ label: `at max nodes (${n(c.maxNodes)})`, ips: c.maxNodes * c.ipsPerNode });
  return out;
}

export function renderPlanSvg(r: PlanOutcome): string {
  const body: string[] = [];
  let y = MARGIN + 6;
  const text = (x: number, s: string, cls = '') => {
    body.push(`<text x="${x}" y="${y}"${cls ? ` class="${cls}"` : ''}>${xmlText(s)}</text>`);
  };
  const verdict = r.valid ? 'valid' : 'INVALID';
  const desc: string[] = [];
  if ('networkProfile' in r) {
    const np = r.networkProfile;
    const model = `${np.networkPlugin}${np.networkPluginMode ? ` (${np.networkPluginMode})` : ''}`;
    text(MARGIN, `AKS network plan: ${model}, api-version ${r.apiVersion}: ${verdict}`, 'h');
    y += LINE + 4;
    text(MARGIN, `Node subnet ${r.subnet.name} ${r.subnet.cidr} in VNet ${r.subnet.vnetCidr}${r.subnet.managed ? ' (managed)' : ''}`);
    y += LINE;
    text(MARGIN, `Pod CIDR ${np.podCidr ?? '(none)'} · Service CIDR ${np.serviceCidr} · DNS service IP ${np.dnsServiceIP}`);
    desc.push(`Plan for ${model} in subnet ${r.subnet.cidr}: ${verdict}.`);
    if (r.capacity) {
      const c = r.capacity;
      y += LINE * 2;
      text(MARGIN, `Node subnet fill: ${n(c.usableIps)} usable addresses, ${n(c.ipsPerNode)} per node`, 'h2');
      for (const b of bars(r)) {
        y += LINE + 10;
        const share = c.usableIps > 0 ? b.ips / c.usableIps : b.ips > 0 ? Infinity : 0;
        const over = share > 1;
        // A few addresses of a large subnet still show as a sliver.
        const w = b.ips > 0 ? Math.max(2, Math.round(Math.min(share, 1) * BAR)) : 0;
        text(MARGIN, b.label);
        body.push(`<rect class="track" x="${MARGIN + LABEL}" y="${y - 13}" width="${BAR}" height="16"/>`);
        if (w > 0) body.push(`<rect class="${over ? 'over' : 'fill'}" x="${MARGIN + LABEL}" y="${y - 13}" width="${w}" height="16"/>`);
        const figure = `${n(b.ips)} / ${n(c.usableIps)}${over ? `, ${n(b.ips - c.usableIps)} short` : ` (${percent(share)})`}`;
        text(MARGIN + LABEL + BAR + 8, figure, over ? 'bad' : '');
        desc.push(`${b.label}: ${figure} addresses.`);
      }
      y += LINE * 2;
      text(
        MARGIN,
        `Max nodes ${n(c.maxNodes)} · Max pods ${n(c.maxPods)}${c.minimumSubnetPrefix !== undefined ? ` · Smallest subnet /${c.minimumSubnetPrefix}` : ''}`,
        'h2',
      );
      desc.push(`Max nodes ${n(c.maxNodes)}, max pods ${n(c.maxPods)}.`);
    }
  } else {
    text(MARGIN, `AKS network plan: ${verdict}`, 'h');
    desc.push(`Plan: ${verdict}.`);
  }
  const list = (title: string, items: string[][], cls: string) => {
    if (items.length === 0) return;
    y += LINE * 2;
    text(MARGIN, title, 'h2');
    for (const lines of items) {
      for (const [i, line] of lines.entries()) {
        y += LINE;
        text(MARGIN + (i === 0 ? 0 : 16), line, cls);
      }
    }
  };
  const problems = (ps: Problem[]) => ps.map((p) => wrap(`(${p.code}) ${p.message} [target: ${p.target}]`));
  list('Errors', problems(r.errors), 'bad');
  list('Warnings', problems(r.warnings), 'warn');
  desc.push(...r.errors.map((p) => `Error ${p.code}: ${p.message}`));
  const suggestions = r.suggestions ?? [];
  list(
    'Designs that would pass',
    suggestions.map((s) => wrap(`${s.summary}: ${flagsText(s)} (max nodes ${n(s.maxNodes)}, max pods ${n(s.maxPods)})`)),
    'ok',
  );
  desc.push(...suggestions.map((s) => `Would pass: ${s.summary}.`));
  const height = y + MARGIN;
  const style =
    'text{font-family:sans-serif;font-size:13px;fill:#1b1b1b}.h{font-size:17px;font-weight:bold}.h2{font-weight:bold}' +
    '.bad{fill:#a4262c}.warn{fill:#8a5300}.ok{fill:#0b6a0b}.track{fill:#e1e1e1}.fill{fill:#0f6cbd}.over{fill:#c50f1f}';
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="t d">`,
    `<title id="t">AKS network plan: ${verdict}</title>`,
    `<desc id="d">${xmlText(desc.join(' '))}</desc>`,
    `<style>${style}</style>`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

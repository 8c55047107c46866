// `#/plan`: az's flags in a form → the plan as `aksemu plan` makes it: the picture (the same SVG as
// `aksemu plan --format svg`), every error with its code and message, the warnings, and for an invalid design the
// nearest designs that pass, each one click from being planned in turn.
import { ApiError, postJson } from '../api.js';
import { facts, h, num, section } from '../dom.js';
import type { Page } from '../page.js';
import type { PlanAnswer, Problem } from '../types.js';

interface Field {
  flag: string;
  label: string;
  choices?: string[];
  placeholder?: string;
  hint?: string;
}

const FIELDS: Field[] = [
  { flag: 'network-plugin', label: 'Network plugin', choices: ['', 'azure', 'kubenet', 'none'] },
  { flag: 'network-plugin-mode', label: 'Network plugin mode', choices: ['', 'overlay'] },
  { flag: 'network-policy', label: 'Network policy', choices: ['', 'azure', 'calico', 'cilium', 'none'] },
  { flag: 'node-count', label: 'Node count', placeholder: '3' },
  { flag: 'max-pods', label: 'Max pods per node', placeholder: '30' },
  { flag: 'max-surge', label: 'Max surge', placeholder: '10%' },
  { flag: 'vnet-cidr', label: 'VNet address space', placeholder: '10.224.0.0/12' },
  { flag: 'subnet-cidr', label: 'Node subnet', placeholder: '10.224.0.0/16' },
  { flag: 'pod-subnet-cidr', label: 'Pod subnet', placeholder: '(Azure CNI with a pod subnet)' },
  { flag: 'pod-cidr', label: 'Pod CIDR', placeholder: '10.244.0.0/16' },
  { flag: 'service-cidr', label: 'Service CIDR', placeholder: '10.0.0.0/16' },
  { flag: 'dns-service-ip', label: 'DNS service IP', placeholder: '10.0.0.10' },
  { flag: 'api-version', label: 'API version', placeholder: 'newest stable', hint: 'Microsoft.ContainerService api-version' },
];

/** The form's values survive a visit to another page. */
const state: Record<string, string> = { 'network-plugin': 'azure', 'node-count': '50', 'vnet-cidr': '10.240.0.0/16', 'subnet-cidr': '10.240.0.0/24' };

function problems(title: string, list: readonly Problem[], testid: string): HTMLElement | null {
  if (list.length === 0) return null;
  return section(
    title,
    3,
    h(
      'ul',
      { class: 'problems' },
      ...list.map((p) =>
        h(
          'li',
          { 'data-testid': testid },
          h('code', { class: 'code' }, p.code),
          ' ',
          p.message,
          p.target ? h('span', { class: 'target' }, ` (${p.target})`) : null,
        ),
      ),
    ),
  );
}

function svgImage(svg: string, alt: string): HTMLImageElement {
  // As an image from a data: URL (the CSP allows data: images): the picture cannot run anything, and its text is
  // written out below it as well.
  return h('img', { class: 'plan-svg', src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`, alt });
}

export function planPage(): Page {
  return {
    title: 'Plan an AKS network',
    wants: () => false,
    async render() {
      const out = h('div', { class: 'plan-out', 'aria-live': 'polite', 'data-testid': 'plan-result' });
      const inputs = new Map<string, HTMLInputElement | HTMLSelectElement>();
      const form = h('form', { class: 'plan-form', 'aria-label': 'Plan flags (as az aks create takes them)' });
      for (const f of FIELDS) {
        const id = `flag-${f.flag}`;
        const input = f.choices
          ? h('select', { id, name: f.flag }, ...f.choices.map((c) => h('option', { value: c }, c === '' ? '(default)' : c)))
          : h('input', { id, name: f.flag, type: 'text', placeholder: f.placeholder, autocomplete: 'off', spellcheck: 'false' });
        input.value = state[f.flag] ?? '';
        inputs.set(f.flag, input);
        form.appendChild(h('div', { class: 'field' }, h('label', { for: id }, f.label, ' ', h('code', {}, `--${f.flag}`)), input));
      }
      const submit = h('button', { type: 'submit' }, 'Plan');
      form.appendChild(h('div', { class: 'actions' }, submit));

      const run = async () => {
        const flags: Record<string, string> = {};
        for (const [flag, input] of inputs) {
          state[flag] = input.value.trim();
          if (state[flag] !== '') flags[flag] = state[flag];
        }
        submit.disabled = true;
        out.replaceChildren(h('p', {}, 'Planning…'));
        try {
          const answer = await postJson<PlanAnswer>('plan', { flags });
          out.replaceChildren(result(answer, apply));
        } catch (e) {
          const err = e instanceof ApiError ? e : new ApiError(0, 'Error', String(e));
          out.replaceChildren(h('p', { class: 'error-text', role: 'alert', 'data-testid': 'plan-error' }, h('code', {}, err.code), ' ', err.message));
        } finally {
          submit.disabled = false;
        }
      };
      const apply = (flags: Array<[string, string]>) => {
        for (const [flag, value] of flags) {
          const input = inputs.get(flag.replace(/^--/, ''));
          if (input) input.value = value;
        }
        void run();
      };
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        void run();
      });
      return h('div', {}, h('p', {}, 'The same rules as ', h('code', {}, 'aksemu plan'), ' and AKS itself; empty fields take AKS defaults.'), form, out);
    },
  };
}

function result(a: PlanAnswer, apply: (flags: Array<[string, string]>) => void): HTMLElement {
  const p = a.plan;
  const c = p.capacity;
  const verdict = p.valid ? 'VALID' : 'INVALID';
  const suggestions = p.suggestions ?? [];
  return h(
    'div',
    {},
    h('p', { class: `verdict ${p.valid ? 'ok' : 'bad'}`, 'data-testid': 'plan-verdict' }, verdict, p.apiVersion ? ` at api-version ${p.apiVersion}` : ''),
    c
      ? facts([
          ['Model', c.plugin],
          ['Node subnet', `${c.subnetCidr}: ${num(c.usableIps)} usable addresses`],
          ['Addresses needed', num(c.ipsRequired)],
          ['With upgrade surge', num(c.ipsRequiredForUpgrade)],
          ['Max nodes', num(c.maxNodes)],
          ['Max pods', num(c.maxPods)],
        ])
      : null,
    svgImage(
      a.svg,
      `The plan as a picture: ${verdict}${c ? `, max nodes ${num(c.maxNodes)}, max pods ${num(c.maxPods)}` : ''}. Its figures are listed as text on this page.`,
    ),
    problems('Errors', p.errors, 'plan-problem'),
    problems('Warnings', p.warnings, 'plan-warning'),
    suggestions.length
      ? section(
          'Designs that would pass',
          3,
          h(
            'ul',
            { class: 'suggestions' },
            ...suggestions.map((s) => {
              const button = h('button', { type: 'button' }, 'Plan this');
              button.addEventListener('click', () => apply(s.flags));
              return h(
                'li',
                { 'data-testid': 'plan-suggestion' },
                `${s.summary}: max nodes ${num(s.maxNodes)}, max pods ${num(s.maxPods)} `,
                h('code', {}, s.flags.map(([f, v]) => `${f} ${v}`).join(' ')),
                ' ',
                button,
              );
            }),
          ),
        )
      : !p.valid
        ? h('p', {}, 'No nearby design passes.')
        : null,
  );
}

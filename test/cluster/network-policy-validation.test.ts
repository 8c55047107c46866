// NetworkPolicy defaulting and validation as the apiserver runs them (issue 25): policyTypes and the ports'
// protocol defaulted, bad policies a 422 Invalid Status with the apiserver's field paths and words, which the
// real kubectl prints as it prints a real cluster's.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { api, HAVE_KUBECTL, kubectl, withCluster } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';
const PATH = '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies';

const policy = (name: string, spec: unknown) => JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name }, spec });

describe('NetworkPolicy defaulting and validation', { skip }, () => {
  test('defaults: policyTypes from the rules, TCP for a port without a protocol, an empty podSelector; bad policies are 422 with the apiserver words', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      const egress = await api(env, 'POST', PATH, { body: policy('egress', { egress: [{ ports: [{ port: 53 }, { port: 'dns', protocol: 'UDP' }] }] }) });
      assert.equal(egress.status, 201, egress.text);
      assert.deepEqual(egress.json.spec, {
        podSelector: {},
        egress: [
          {
            ports: [
              { port: 53, protocol: 'TCP' },
              { port: 'dns', protocol: 'UDP' },
            ],
          },
        ],
        policyTypes: ['Ingress', 'Egress'],
      });
      const bare = await api(env, 'POST', PATH, { body: policy('deny-all', {}) });
      assert.equal(bare.status, 201, bare.text);
      assert.deepEqual(bare.json.spec, { podSelector: {}, policyTypes: ['Ingress'] });
      // Sent policyTypes are kept as sent.
      const kept = await api(env, 'POST', PATH, { body: policy('egress-only', { podSelector: {}, policyTypes: ['Egress'] }) });
      assert.deepEqual(kept.json.spec.policyTypes, ['Egress']);

      const bad = await api(env, 'POST', PATH, {
        body: policy('bad', {
          podSelector: {
            matchExpressions: [
              { key: 'app', operator: 'Has' },
              { key: 'tier', operator: 'In' },
            ],
          },
          ingress: [
            {
              ports: [{ protocol: 'ICMP', port: 70000 }, { port: 80, endPort: 79 }, { port: 'Web--', endPort: 90 }, { endPort: 10 }],
              from: [{}, { ipBlock: { cidr: '10.0.0.0/8', except: ['192.168.0.0/16', '10.0.0.0/8'] }, podSelector: {} }],
            },
          ],
          egress: [{ to: [{ ipBlock: { cidr: '10.0.0/8' } }, { ipBlock: { cidr: '' } }] }],
          policyTypes: ['Ingress', 'Sideways'],
        }),
      });
      assert.equal(bad.status, 422, bad.text);
      assert.equal(bad.json.reason, 'Invalid');
      assert.equal(bad.json.details.kind, 'NetworkPolicy');
      assert.equal(bad.json.details.group, 'networking.k8s.io');
      const causes = bad.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
      assert.deepEqual(causes, [
        'spec.podSelector.matchExpressions[0].operator: Invalid value: "Has": not a valid selector operator',
        "spec.podSelector.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
        'spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.ingress[0].ports[1].endPort: Invalid value: 79: must be greater than or equal to `port`',
        'spec.ingress[0].ports[2].endPort: Invalid value: 90: may not be specified when `port` is non-numeric',
        'spec.ingress[0].ports[2].port: Invalid value: "Web--": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
        'spec.ingress[0].ports[2].port: Invalid value: "Web--": must not contain consecutive hyphens',
        'spec.ingress[0].ports[2].port: Invalid value: "Web--": must not begin or end with a hyphen',
        'spec.ingress[0].ports[3].endPort: Invalid value: 10: may not be specified when `port` is not specified',
        'spec.ingress[0].from[0]: Required value: must specify a peer',
        'spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`',
        'spec.ingress[0].from[1].ipBlock.except[1]: Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`',
        'spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer',
        'spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0/8": not a valid CIDR',
        'spec.egress[0].to[1].ipBlock.cidr: Required value',
        'spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
      ]);
      assert.equal((await api(env, 'GET', `${PATH}/bad`)).status, 404, 'nothing stored');
      const many = await api(env, 'POST', PATH, { body: policy('many', { policyTypes: ['Ingress', 'Egress', 'Ingress'] }) });
      assert.equal(many.status, 422, many.text);
      assert.equal(
        many.json.message,
        'NetworkPolicy.networking.k8s.io "many" is invalid: spec.policyTypes: Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not specify more than two policyTypes',
      );

      // What a user sees: kubectl apply of a bad policy prints the apiserver's error.
      const file = join(env.scratch, 'bad.yaml');
      writeFileSync(
        file,
        'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: web\nspec:\n  podSelector: {}\n  ingress:\n  - ports:\n    - protocol: ICMP\n      port: 80\n',
      );
      const applied = await kubectl(env, ['apply', '-f', file]);
      assert.notEqual(applied.code, 0);
      assert.equal(
        applied.stderr.trim(),
        'The NetworkPolicy "web" is invalid: spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
      );
      writeFileSync(
        file,
        'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: web\nspec:\n  podSelector: {}\n  ingress:\n  - ports:\n    - port: 80\n',
      );
      assert.equal((await kubectl(env, ['apply', '-f', file])).code, 0);
      const got = await kubectl(env, ['get', 'networkpolicy', 'web', '-o', 'jsonpath={.spec.policyTypes} {.spec.ingress[0].ports[0].protocol}']);
      assert.equal(got.stdout, '["Ingress"] TCP');
    }));
});

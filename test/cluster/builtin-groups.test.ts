// The built-in groups installers touch, through the real kubectl: discovery lists them (api-resources), `kubectl
// get` prints each as the apiserver's printers do, AKS's default StorageClasses, CSIDrivers and system
// PriorityClasses are there on a new cluster, and the objects installers create behave: a webhook
// configuration is stored with a warning that it is never called, a pod's priorityClassName resolves to its
// priority (an unknown class refused), a Service with ready pods gets an EndpointSlice, a PDB's status is
// computed, an APIService with no endpoints is Available=False, a Lease is created and renewed.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import forge from 'node-forge';
import { stringify } from 'yaml';
import { RESOURCES } from '../../src/cluster/apimachinery/resources.js';
import { restart } from '../network/harness.js';
import { eventually, HAVE_KUBECTL, kubectl, withCluster, type ClusterEnv } from './harness.js';

const skip = HAVE_KUBECTL ? false : 'no /usr/bin/kubectl on this machine';

function rows(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));
}

async function ok(env: ClusterEnv, args: string[]): Promise<string> {
  const r = await kubectl(env, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function json(env: ClusterEnv, args: string[]): Promise<any> {
  return JSON.parse(await ok(env, [...args, '-o', 'json']));
}

/** A PEM certificate signing request for CN=name, as `openssl req` would make it. */
function certificateRequest(name: string): string {
  const keys = forge.pki.rsa.generateKeyPair(1024);
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = keys.publicKey;
  csr.setSubject([{ name: 'commonName', value: name }]);
  csr.sign(keys.privateKey);
  return forge.pki.certificationRequestToPem(csr);
}

function manifest(env: ClusterEnv, name: string, docs: unknown[]): string {
  const file = join(env.scratch, name);
  writeFileSync(file, docs.map((d) => stringify(d)).join('---\n'));
  return file;
}

const deployment = (name: string, replicas: number, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.25', ports: [{ name: 'http', containerPort: 8080 }] }], ...extra },
    },
  },
});

describe('the built-in groups installers touch, through the real kubectl', { skip }, () => {
  test('discovery, defaults on a new cluster, printers, webhooks, priority classes, endpoint slices, PDB, APIService, Lease', () =>
    withCluster({ networkPlugin: 'kubenet' }, async (env) => {
      // api-resources lists every served kind with its short names, scope and kind.
      const resources = rows(await ok(env, ['api-resources', '--no-headers=false']));
      const header = resources[0]!;
      assert.deepEqual(header, ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
      const listed = new Set(resources.slice(1).map((r) => r[r.length - 1]));
      for (const r of RESOURCES) assert.ok(listed.has(r.kind), `api-resources lists ${r.kind}`);
      const line = (kind: string) => resources.find((r) => r[r.length - 1] === kind)!;
      assert.deepEqual(line('StorageClass'), ['storageclasses', 'sc', 'storage.k8s.io/v1', 'false', 'StorageClass']);
      assert.deepEqual(line('PriorityClass'), ['priorityclasses', 'pc', 'scheduling.k8s.io/v1', 'false', 'PriorityClass']);
      assert.deepEqual(line('EndpointSlice'), ['endpointslices', 'discovery.k8s.io/v1', 'true', 'EndpointSlice']);
      assert.deepEqual(line('HorizontalPodAutoscaler'), ['horizontalpodautoscalers', 'hpa', 'autoscaling/v2', 'true', 'HorizontalPodAutoscaler']);
      assert.deepEqual(line('CertificateSigningRequest'), [
        'certificatesigningrequests',
        'csr',
        'certificates.k8s.io/v1',
        'false',
        'CertificateSigningRequest',
      ]);

      // AKS's defaults: the StorageClasses (`default` marked so), CSIDrivers, CSINodes, system PriorityClasses.
      const sc = rows(await ok(env, ['get', 'sc']));
      assert.deepEqual(sc[0], ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
      const def = sc.find((r) => r[0] === 'default (default)')!;
      assert.deepEqual(def.slice(1, 5), ['disk.csi.azure.com', 'Delete', 'WaitForFirstConsumer', 'true']);
      assert.ok(sc.some((r) => r[0] === 'azurefile-csi' && r[1] === 'file.csi.azure.com'));
      const drivers = rows(await ok(env, ['get', 'csidrivers']));
      assert.deepEqual(drivers[0], ['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES', 'AGE']);
      assert.deepEqual(drivers[1]!.slice(0, 7), ['disk.csi.azure.com', 'true', 'false', 'false', '<unset>', 'false', 'Persistent']);
      const csinodes = rows(await ok(env, ['get', 'csinodes']));
      assert.equal(csinodes.length, 4);
      assert.deepEqual(csinodes[1]!.slice(1, 2), ['2']);
      const pcs = rows(await ok(env, ['get', 'pc']));
      assert.deepEqual(pcs[0], ['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY']);
      assert.deepEqual(pcs.find((r) => r[0] === 'system-cluster-critical')!.slice(1, 3), ['2000000000', 'false']);
      assert.deepEqual(pcs.find((r) => r[0] === 'system-node-critical')!.slice(1, 3), ['2000001000', 'false']);

      // The built-in group versions' APIServices are Local and Available.
      const apis = rows(await ok(env, ['get', 'apiservices']));
      assert.deepEqual(apis[0], ['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
      assert.deepEqual(apis.find((r) => r[0] === 'v1.apps')!.slice(1, 3), ['Local', 'True']);
      assert.ok(apis.some((r) => r[0] === 'v1.'));

      // A ValidatingWebhookConfiguration is stored with its defaults; create and update warn it is never called.
      const hook = {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'policy-hook' },
        webhooks: [
          {
            name: 'validate.example.com',
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            clientConfig: { service: { namespace: 'default', name: 'hook' } },
            rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
          },
        ],
      };
      const created = await kubectl(env, ['create', '-f', manifest(env, 'hook.yaml', [hook])]);
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stderr, /Warning: aksemu stores admission webhook configurations but never calls their webhooks/);
      const stored = await json(env, ['get', 'validatingwebhookconfiguration', 'policy-hook']);
      assert.deepEqual(
        [stored.webhooks[0].failurePolicy, stored.webhooks[0].timeoutSeconds, stored.webhooks[0].clientConfig.service.port, stored.webhooks[0].rules[0].scope],
        ['Fail', 10, 443, '*'],
      );
      const labelled = await kubectl(env, ['label', 'validatingwebhookconfiguration', 'policy-hook', 'team=a']);
      assert.equal(labelled.code, 0, labelled.stderr);
      assert.match(labelled.stderr, /Warning: aksemu stores admission webhook configurations/);
      assert.deepEqual(rows(await ok(env, ['get', 'validatingwebhookconfigurations']))[1]!.slice(0, 2), ['policy-hook', '1']);

      // A PriorityClass used by a Deployment's pods: their priority is the class's value; an unknown class is refused.
      const pc = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 100000, description: 'installer' };
      const web = deployment('web', 2, { priorityClassName: 'high' });
      const service = {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web', namespace: 'default', labels: { tier: 'front' } },
        spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
      };
      const pdb = {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'web', namespace: 'default' },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
      };
      const applied = await kubectl(env, ['apply', '-f', manifest(env, 'web.yaml', [pc, web, service, pdb])]);
      assert.equal(applied.code, 0, applied.stderr);
      await ok(env, ['rollout', 'status', 'deployment/web', '--timeout=40s']);
      const pods = (await json(env, ['get', 'pods', '-l', 'app=web'])).items;
      assert.equal(pods.length, 2);
      for (const p of pods) assert.deepEqual([p.spec.priorityClassName, p.spec.priority, p.spec.preemptionPolicy], ['high', 100000, 'PreemptLowerPriority']);
      // `kubectl create priorityclass` (a typed create: protobuf from kubectl 1.32).
      assert.match(await ok(env, ['create', 'priorityclass', 'low', '--value=10', '--description=batch']), /priorityclass.scheduling.k8s.io\/low created/);
      assert.deepEqual(rows(await ok(env, ['get', 'pc', 'low']))[1]!.slice(1, 3), ['10', 'false']);
      const plain = await kubectl(env, ['run', 'plain', '--image=nginx:1.25']);
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal((await json(env, ['get', 'pod', 'plain'])).spec.priority, 0);
      const refused = await kubectl(env, ['run', 'nope', '--image=nginx:1.25', '--overrides={"spec":{"priorityClassName":"missing"}}']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /pods "nope" is forbidden: no PriorityClass with name missing was found/);

      // The Service's EndpointSlice lists both ready pods, labelled and owned as the controller makes it.
      let slice: any;
      await eventually(
        async () => {
          const items = (await json(env, ['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web'])).items;
          slice = items[0];
          return items.length === 1 && (slice.endpoints ?? []).filter((e: any) => e.conditions.ready).length === 2;
        },
        20_000,
        'an EndpointSlice with two ready endpoints',
      );
      assert.equal(slice.addressType, 'IPv4');
      assert.equal(slice.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
      assert.equal(slice.metadata.labels.tier, 'front');
      assert.deepEqual(slice.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
      assert.deepEqual(slice.endpoints[0].conditions, { ready: true, serving: true, terminating: false });
      assert.equal(slice.metadata.ownerReferences[0].kind, 'Service');
      const sliceRows = rows(await ok(env, ['get', 'endpointslices', slice.metadata.name]));
      assert.deepEqual(sliceRows[0], ['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE']);
      assert.deepEqual(sliceRows[1]!.slice(1, 3), ['IPv4', '8080']);

      // A selected pod being deleted (held by a finalizer) stays in the slice as terminating, no longer ready.
      const held = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'held', namespace: 'default', labels: { app: 'held' }, finalizers: ['example.com/hold'] },
        spec: { containers: [{ name: 'web', image: 'nginx:1.25', ports: [{ name: 'http', containerPort: 8080 }] }] },
      };
      const heldSvc = { ...service, metadata: { name: 'held', namespace: 'default' }, spec: { ...service.spec, selector: { app: 'held' } } };
      await ok(env, ['apply', '-f', manifest(env, 'held.yaml', [held, heldSvc])]);
      await ok(env, ['wait', '--for=condition=Ready', 'pod/held', '--timeout=30s']);
      await ok(env, ['delete', 'pod', 'held', '--wait=false']);
      await eventually(
        async () => {
          const items = (await json(env, ['get', 'endpointslices', '-l', 'kubernetes.io/service-name=held'])).items;
          const e = items[0]?.endpoints?.[0];
          return e !== undefined && e.conditions.terminating === true && e.conditions.ready === false && e.conditions.serving === true;
        },
        10_000,
        'a terminating endpoint',
      );

      // The PDB's status, computed by the disruption controller.
      await eventually(async () => (await json(env, ['get', 'pdb', 'web'])).status.currentHealthy === 2, 15_000, 'PDB currentHealthy 2');
      const status = (await json(env, ['get', 'pdb', 'web'])).status;
      assert.deepEqual(
        [status.currentHealthy, status.desiredHealthy, status.expectedPods, status.disruptionsAllowed, status.observedGeneration],
        [2, 1, 2, 1, 1],
      );
      assert.deepEqual([status.conditions[0].type, status.conditions[0].status, status.conditions[0].reason], ['DisruptionAllowed', 'True', 'SufficientPods']);
      assert.deepEqual(rows(await ok(env, ['get', 'pdb']))[1]!.slice(0, 4), ['web', '1', 'N/A', '1']);
      // maxUnavailable counts the pods' controller's scale: the Deployment's 2 replicas.
      const byMax = { ...pdb, metadata: { name: 'web-max', namespace: 'default' }, spec: { maxUnavailable: '50%', selector: pdb.spec.selector } };
      await ok(env, ['apply', '-f', manifest(env, 'pdb-max.yaml', [byMax])]);
      await eventually(async () => (await json(env, ['get', 'pdb', 'web-max'])).status.expectedPods === 2, 10_000, 'PDB expectedPods 2');
      const max = (await json(env, ['get', 'pdb', 'web-max'])).status;
      assert.deepEqual([max.currentHealthy, max.desiredHealthy, max.disruptionsAllowed], [2, 1, 1]);

      // An aggregated APIService whose Service has no ready endpoints: Available=False with the aggregator's words.
      const metrics = {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: 'v1beta1.custom.metrics.k8s.io' },
        spec: {
          group: 'custom.metrics.k8s.io',
          version: 'v1beta1',
          service: { namespace: 'default', name: 'adapter', port: 443 },
          groupPriorityMinimum: 100,
          versionPriority: 100,
          insecureSkipTLSVerify: true,
        },
      };
      const adapter = {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'adapter', namespace: 'default' },
        spec: { selector: { app: 'adapter' }, ports: [{ name: 'https', port: 443, targetPort: 6443 }] },
      };
      const misnamed = await kubectl(env, ['create', '-f', manifest(env, 'misnamed.yaml', [{ ...metrics, metadata: { name: 'metrics' } }])]);
      assert.equal(misnamed.code, 1);
      assert.match(misnamed.stderr, /metadata.name: Invalid value: "metrics": must be `spec.version\+"."\+spec.group`: "v1beta1.custom.metrics.k8s.io"/);
      await ok(env, ['apply', '-f', manifest(env, 'apiservice.yaml', [adapter, metrics])]);
      let api: any;
      await eventually(
        async () => {
          api = await json(env, ['get', 'apiservice', 'v1beta1.custom.metrics.k8s.io']);
          return (api.status?.conditions ?? []).some((c: any) => c.reason === 'MissingEndpoints');
        },
        10_000,
        'APIService MissingEndpoints',
      );
      const available = api.status.conditions.find((c: any) => c.type === 'Available');
      assert.equal(available.status, 'False');
      assert.equal(available.message, 'endpoints for service/adapter in "default" have no addresses with port name "https"');
      const apiRow = rows(await ok(env, ['get', 'apiservice', 'v1beta1.custom.metrics.k8s.io']))[1]!;
      assert.deepEqual(apiRow.slice(1, 3), ['default/adapter', 'False (MissingEndpoints)']);
      // Discovery and kubectl are unaffected.
      await ok(env, ['api-resources']);
      await ok(env, ['get', 'pods']);

      // A Lease for leader election: created, renewed by update, listed beside the node Leases.
      const lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'my-operator-lock', namespace: 'kube-system' },
        spec: { holderIdentity: 'op-1', leaseDurationSeconds: 15 },
      };
      await ok(env, ['create', '-f', manifest(env, 'lease.yaml', [lease])]);
      await ok(env, ['patch', 'lease', '-n', 'kube-system', 'my-operator-lock', '--type=merge', '-p', '{"spec":{"holderIdentity":"op-2"}}']);
      const leases = rows(await ok(env, ['get', 'leases', '-n', 'kube-system']));
      assert.deepEqual(leases[0], ['NAME', 'HOLDER', 'AGE']);
      assert.deepEqual(leases.find((r) => r[0] === 'my-operator-lock')!.slice(1, 2), ['op-2']);
      assert.equal(rows(await ok(env, ['get', 'leases', '-n', 'kube-node-lease'])).length, 4);

      // A CertificateSigningRequest is stored; `kubectl certificate approve` writes its approval subresource.
      const csr = {
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { name: 'agent' },
        spec: {
          request: Buffer.from(certificateRequest('agent')).toString('base64'),
          signerName: 'kubernetes.io/kube-apiserver-client',
          expirationSeconds: 86400,
          usages: ['client auth'],
        },
      };
      const bad = await kubectl(env, [
        'create',
        '-f',
        manifest(env, 'bad-csr.yaml', [{ ...csr, spec: { ...csr.spec, request: Buffer.from('hello').toString('base64') } }]),
      ]);
      assert.equal(bad.code, 1);
      assert.match(
        bad.stderr,
        /The CertificateSigningRequest "agent" is invalid: spec.request: Invalid value: \[\]byte\{0x68, 0x65, 0x6c, 0x6c, 0x6f\}: PEM block type must be CERTIFICATE REQUEST/,
      );
      await ok(env, ['create', '-f', manifest(env, 'csr.yaml', [csr])]);
      const pending = rows(await ok(env, ['get', 'csr']));
      assert.deepEqual(pending[0], ['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']);
      assert.deepEqual([pending[1]![0], ...pending[1]!.slice(2)], ['agent', 'kubernetes.io/kube-apiserver-client', 'masterclient', '24h', 'Pending']);
      assert.match(await ok(env, ['certificate', 'approve', 'agent']), /certificatesigningrequest.certificates.k8s.io\/agent approved/);
      const approved = await json(env, ['get', 'csr', 'agent']);
      assert.deepEqual([approved.status.conditions[0].type, approved.status.conditions[0].reason], ['Approved', 'KubectlApprove']);
      assert.equal(rows(await ok(env, ['get', 'csr', 'agent']))[1]!.at(-1), 'Approved');

      // An HPA, an IngressClass and an Ingress, a RuntimeClass: stored with their defaults, printed as kubectl does.
      const extras = [
        {
          apiVersion: 'autoscaling/v2',
          kind: 'HorizontalPodAutoscaler',
          metadata: { name: 'web', namespace: 'default' },
          spec: {
            scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
            maxReplicas: 5,
            metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
          },
        },
        { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } },
        {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'Ingress',
          metadata: { name: 'web', namespace: 'default' },
          spec: {
            ingressClassName: 'nginx',
            rules: [
              { host: 'web.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } },
            ],
          },
        },
        { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'kata' }, handler: 'kata' },
      ];
      await ok(env, ['apply', '-f', manifest(env, 'extras.yaml', extras)]);
      const hpa = rows(await ok(env, ['get', 'hpa']));
      assert.deepEqual(hpa[0], ['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
      assert.deepEqual(hpa[1]!.slice(0, 6), ['web', 'Deployment/web', 'cpu: <unknown>/80%', '1', '5', '0']);
      assert.deepEqual(rows(await ok(env, ['get', 'ingressclass']))[1]!.slice(0, 2), ['nginx', 'k8s.io/ingress-nginx']);
      const ing = rows(await ok(env, ['get', 'ingress']));
      assert.deepEqual(ing[0], ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
      assert.deepEqual(ing[1]!.slice(0, 4), ['web', 'nginx', 'web.example.com', '80']);
      assert.deepEqual(rows(await ok(env, ['get', 'runtimeclass']))[1]!.slice(0, 2), ['kata', 'kata']);

      // The rest of the new kinds answer `kubectl get` with their printer's columns.
      const heads: Array<[string, string[]]> = [
        ['pv', ['No resources found']],
        ['resourcequota', ['No resources found in default namespace.']],
        ['ingressclass', ['No resources found']],
        ['runtimeclass', ['No resources found']],
      ];
      for (const [kind] of heads) {
        const r = await kubectl(env, ['get', kind]);
        assert.equal(r.code, 0, `${kind}: ${r.stderr}`);
      }
      const pvc = {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data', namespace: 'default' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      };
      await ok(env, ['apply', '-f', manifest(env, 'pvc.yaml', [pvc])]);
      const claim = rows(await ok(env, ['get', 'pvc', 'data']));
      assert.deepEqual(claim[0], ['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'AGE']);
      assert.deepEqual(claim[1]!.slice(0, 3), ['data', 'Pending', 'default']);

      // kubectl's describers read these kinds as the apiserver serves them.
      for (const args of [
        ['pdb', 'web'],
        ['sc', 'default'],
        ['apiservice', 'v1beta1.custom.metrics.k8s.io'],
        ['csr', 'agent'],
        ['endpointslices', '-l', 'kubernetes.io/service-name=web'],
        ['pc', 'high'],
        ['ingress', 'web'],
        ['hpa', 'web'],
        ['pvc', 'data'],
      ]) {
        const described = await kubectl(env, ['describe', ...args]);
        assert.equal(described.code, 0, `describe ${args.join(' ')}: ${described.stderr}`);
        assert.match(described.stdout, /^Name:/m, args.join(' '));
      }

      // After a restart every stored object of the new kinds is served again (none skipped at restore).
      await restart(env);
      assert.deepEqual(
        env.server.logLines.filter((l) => /skipped/.test(l)),
        [],
      );
      assert.deepEqual(rows(await ok(env, ['get', 'pc', 'high']))[1]!.slice(1, 2), ['100000']);
      assert.equal((await json(env, ['get', 'lease', '-n', 'kube-system', 'my-operator-lock'])).spec.holderIdentity, 'op-2');
      assert.equal((await json(env, ['get', 'validatingwebhookconfigurations'])).items.length, 1);
      assert.equal((await json(env, ['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web'])).items.length, 1);
      assert.equal((await json(env, ['get', 'storageclasses'])).items.length, 9);
      assert.ok((await json(env, ['get', 'apiservices'])).items.some((a: any) => a.metadata.name === 'v1beta1.custom.metrics.k8s.io'));
    }));
});

// The tigera operator's process (quay.io/tigera/operator, `operator -manage-crds=true`) as aksemu runs it: the
// reconcile loops of its installation, ippool and apiserver controllers for Calico networking on Linux nodes
// (tigera/operator v1.42.3: pkg/controller/installation/core_controller.go, pkg/controller/ippool/
// pool_controller.go, pkg/controller/apiserver). On an Installation named default it writes the defaults back
// into the spec with its finalizers, creates calico-system and what tigera-render.ts renders, bootstraps the IP
// pools as crd.projectcalico.org/v1 IPPools (not owned by the Installation, so they stay when it goes), and keeps
// TigeraStatus calico / ippools / apiserver and the Installation's status up to date as the workloads become
// ready. On the Installation's deletion it tears down in the operator's order (kube-controllers first, then the
// CNI finalizers, then its own); calico-system and what was rendered into it go with the Installation through
// their ownerReferences, by the garbage collector (controllers/gc.ts), as on Kubernetes.
//
// The APIServer resource asks for the Calico API server, an aggregated API server for projectcalico.org/v3:
// aksemu runs no aggregated API servers, so nothing is deployed and TigeraStatus apiserver says so (Degraded).
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../apimachinery/object.js';
import { issueTyphaPair, newSigner, type Pem } from './tigera-certs.js';
import { CALICO_VERSION, fillDefaults, InvalidInstallation, OPERATOR_VERSION, type InstallationSpec } from './tigera-installation.js';
import { ADD_ONS, renderAddOn } from './tigera-observability.js';
import { CNI_FINALIZER, type Desired, ipPoolObject, NS, render } from './tigera-render.js';
import { conditionsOf, observe, sameConditions, stamped, type Condition } from './tigera-status.js';
import type { AgentClient } from '../client/agent-client.js';
import type { Program, ProgramContext } from './program.js';

const OPERATOR = '/apis/operator.tigera.io/v1';
const INSTALLATION = `${OPERATOR}/installations/default`;
const APISERVER = `${OPERATOR}/apiservers/default`;
const STATUSES = `${OPERATOR}/tigerastatuses`;
const IPPOOLS = '/apis/crd.projectcalico.org/v1/ippools';
/** render/finalizers.go */
const CLEANUP_FINALIZER = 'tigera.io/operator-cleanup';
const CONTROLLER_FINALIZER = 'operator.tigera.io/installation-controller';
const APISERVER_FINALIZER = 'operator.tigera.io/apiserver-controller';
/** A resync as controller-runtime's periodic one, besides the watches. */
const RESYNC_MS = 2_000;
const APISERVER_MESSAGE =
  'the Calico API server (projectcalico.org/v3) is an aggregated API server, which aksemu does not run; no calico-apiserver is deployed. Calico resources remain available as crd.projectcalico.org/v1';

type Obj = Record<string, unknown>;

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const finalizersOf = (o: KubeObject): string[] => (Array.isArray(o.metadata['finalizers']) ? (o.metadata['finalizers'] as string[]) : []);
const stableJson = (v: unknown): string => JSON.stringify(v);

/** The operator's state across reconciles: what it applied (by path) and its certificates. */
class Operator {
  /** What was last written, by path: rendered objects, the defaults patch, the Installation's status (a
   * schema's defaults or pruning on the server must not make the same write repeat every resync). */
  private readonly applied = new Map<string, string>();
  private pem?: { signer: Pem; typha: Pem; node: Pem };
  private lastLog = '';

  constructor(private readonly ctx: ProgramContext) {}

  private get api(): AgentClient {
    return this.ctx.api;
  }

  log(level: 'info' | 'error', logger: string, msg: string, extra: Obj = {}): void {
    const line = JSON.stringify({ level, ts: now(), logger, msg, ...extra });
    if (line.slice(line.indexOf('"logger"')) === this.lastLog) return;
    this.lastLog = line.slice(line.indexOf('"logger"'));
    this.ctx.write(level === 'error' ? 'stderr' : 'stdout', `${line}\n`);
  }

  async reconcile(): Promise<void> {
    const installation = this.api.get(INSTALLATION);
    await this.reconcileApiServer(installation);
    if (!installation) {
      this.forgetInstallation();
      return;
    }
    if (installation.metadata.deletionTimestamp) {
      this.terminate(installation);
      return;
    }
    let spec: InstallationSpec;
    try {
      spec = fillDefaults(installation['spec']);
    } catch (e) {
      if (!(e instanceof InvalidInstallation)) throw e;
      this.log('error', 'controller_installation', 'Invalid Installation provided', { error: e.message });
      this.setStatus(
        'calico',
        conditionsOf({ progressing: [], failing: [] }, { reason: 'InvalidConfigurationError', message: `Invalid Installation provided: ${e.message}` }),
      );
      return;
    }
    this.writeDefaults(installation, spec);
    this.reconcilePools(spec);
    if (spec.cni.type !== 'Calico') {
      // Calico CNI is what aksemu's nodes can run; other CNI types need the cloud's own plugin, not deployed here.
      this.log('info', 'controller_installation', 'Rendering for a non-Calico CNI plugin', { cni: spec.cni.type });
    }
    const pem = await this.certificates();
    const nodes = this.api.list('/api/v1/nodes', 'kubernetes.io/os=linux').length;
    const desired = render({ spec, uid: installation.metadata.uid ?? '', nodes, pem });
    for (const d of desired) this.apply(d);
    this.reportCalico(installation, spec);
    this.reconcileAddOns(spec);
  }

  /** Goldmane and Whisker: each resource present renders its Deployment, reported in its own TigeraStatus. */
  private reconcileAddOns(spec: InstallationSpec): void {
    for (const addOn of ADD_ONS) {
      const cr = this.api.get(`${OPERATOR}/${addOn.resource}/default`);
      const deployment = `/apis/apps/v1/namespaces/${NS}/deployments/${addOn.name}`;
      if (!cr || cr.metadata.deletionTimestamp) {
        this.removeAddOn(addOn.name);
        continue;
      }
      for (const d of renderAddOn(addOn, cr, spec)) this.apply(d);
      const pods = () => this.api.list(`/api/v1/namespaces/${NS}/pods`, `k8s-app=${addOn.name}`);
      this.setStatus(addOn.name, conditionsOf(observe([{ kind: 'Deployment', object: this.api.get(deployment), pods }])));
    }
  }

  /** What the garbage collector removes when an add-on's resource goes, and the status manager's cleanup. */
  private removeAddOn(name: string): void {
    const core = `/api/v1/namespaces/${NS}`;
    for (const path of [
      `/apis/apps/v1/namespaces/${NS}/deployments/${name}`,
      `${core}/services/${name}`,
      `${core}/serviceaccounts/${name}`,
      `${STATUSES}/${name}`,
    ])
      if (this.api.get(path)) {
        this.api.delete(path);
        this.applied.delete(path);
      }
  }

  /** Writes the defaulted spec and the finalizers back, once (the operator's Patch of its defaults). */
  private writeDefaults(installation: KubeObject, spec: InstallationSpec): void {
    const finalizers = finalizersOf(installation);
    const want = [...finalizers, ...[CONTROLLER_FINALIZER, CLEANUP_FINALIZER].filter((f) => !finalizers.includes(f))];
    const patch = { metadata: { finalizers: want }, spec };
    if (stableJson(installation['spec']) === stableJson(spec) && want.length === finalizers.length) return;
    if (this.applied.get(`${INSTALLATION}#defaults`) === stableJson(patch) && want.length === finalizers.length) return;
    this.applied.set(`${INSTALLATION}#defaults`, stableJson(patch));
    const r = this.api.patch(INSTALLATION, patch);
    if (!r.object) this.log('error', 'controller_installation', 'Failed to write defaults', { error: JSON.stringify(r.error) });
  }

  /** The ippool controller: pools are created with the v1 API while none exist (the v3 API needs the Calico API
   * server, which is not running); afterwards a change needs the API server, so the status says Degraded. */
  private reconcilePools(spec: InstallationSpec): void {
    const current = this.api.list(IPPOOLS);
    const ours = current.filter((p) => p.metadata.labels?.['app.kubernetes.io/managed-by'] === 'tigera-operator');
    const wanted = spec.calicoNetwork.ipPools.map(ipPoolObject);
    let degraded: { reason: string; message: string } | undefined;
    if (current.length === 0) {
      for (const pool of wanted) {
        const r = this.api.create(IPPOOLS, pool);
        if (!r.object && r.status !== 409) degraded = { reason: 'ResourceCreateError', message: `Error creating IP pool ${pool.metadata.name}` };
      }
    } else {
      const differs = wanted.some((w) => {
        const have = ours.find((o) => o.metadata.name === w.metadata.name);
        return !have || !isDeepStrictEqual(have['spec'], w['spec']);
      });
      const foreign = wanted.find((w) => current.some((c) => !ours.includes(c) && (c['spec'] as Obj | undefined)?.['cidr'] === (w['spec'] as Obj)['cidr']));
      if (foreign) degraded = { reason: 'ResourceValidationError', message: 'Cannot update an IP pool not owned by the operator' };
      else if (differs) degraded = { reason: 'ResourceNotReady', message: 'Unable to modify IP pools while Calico API server is unavailable' };
    }
    this.setStatus('ippools', conditionsOf({ progressing: [], failing: [] }, degraded));
  }

  private async certificates(): Promise<{ ca: string; nodeCert: string; nodeKey: string; typhaCert: string; typhaKey: string }> {
    if (!this.pem) {
      const signer = await newSigner();
      this.pem = { signer, ...(await issueTyphaPair(signer)) };
    }
    const { signer, node, typha } = this.pem;
    return { ca: signer.cert, nodeCert: node.cert, nodeKey: node.key, typhaCert: typha.cert, typhaKey: typha.key };
  }

  /** Creates or updates one rendered object; unchanged renders are not written again. */
  private apply(d: Desired): void {
    const path = `${d.collection}/${d.name}`;
    const hash = stableJson(d.object);
    const current = this.api.get(path);
    if (current && this.applied.get(path) === hash) return;
    if (!current) {
      const r = this.api.create(d.collection, d.object);
      if (r.object || r.status === 409) this.applied.set(path, hash);
      else this.log('error', 'controller_installation', 'Error creating resource', { kind: d.object.kind, name: d.name, error: JSON.stringify(r.error) });
      return;
    }
    // mergeState (component.go): the current object's metadata the operator does not own is kept.
    const next = {
      ...current,
      ...d.object,
      metadata: { ...current.metadata, ...d.object.metadata, resourceVersion: current.metadata.resourceVersion },
    } as KubeObject;
    if ('status' in current) next['status'] = current['status'];
    const r = this.api.update(path, next);
    if (r.object) this.applied.set(path, hash);
  }

  /** TigeraStatus calico from the workloads, and the Installation's status (status.go; core_controller.go). */
  private reportCalico(installation: KubeObject, spec: InstallationSpec): void {
    const apps = `/apis/apps/v1/namespaces/${NS}`;
    const pods = (name: string) => () => this.api.list(`/api/v1/namespaces/${NS}/pods`, `k8s-app=${name}`);
    const observed = observe([
      { kind: 'DaemonSet', object: this.api.get(`${apps}/daemonsets/calico-node`), pods: pods('calico-node') },
      { kind: 'Deployment', object: this.api.get(`${apps}/deployments/calico-typha`), pods: pods('calico-typha') },
      { kind: 'Deployment', object: this.api.get(`${apps}/deployments/calico-kube-controllers`), pods: pods('calico-kube-controllers') },
      { kind: 'DaemonSet', object: this.api.get(`${apps}/daemonsets/csi-node-driver`), pods: pods('csi-node-driver') },
    ]);
    const conditions = conditionsOf(observed);
    this.setStatus('calico', conditions);
    const available = conditions[0]?.status === 'True';
    const fresh = this.api.get(INSTALLATION) ?? installation;
    const before = (fresh['status'] ?? {}) as Obj;
    const mtu = Number.parseInt(this.ctx.files.read('/var/lib/calico/mtu') ?? '', 10);
    const status: Obj = { ...before, conditions: stamped(conditions, before['conditions'], now(), fresh.metadata.generation ?? 1) };
    // The MTU (the spec's, else what calico-node wrote to /var/lib/calico/mtu), variant, version and computed
    // spec are written once the installation is available.
    if (available)
      Object.assign(status, {
        mtu: typeof spec.calicoNetwork.mtu === 'number' ? spec.calicoNetwork.mtu : Number.isFinite(mtu) ? mtu : 0,
        variant: spec.variant,
        calicoVersion: CALICO_VERSION,
        computed: spec,
        imageSet: '',
      });
    const key = stableJson({ ...status, conditions });
    if (before['conditions'] !== undefined && this.applied.get(`${INSTALLATION}/status`) === key) return;
    if (this.api.request('PUT', `${INSTALLATION}/status`, { ...fresh, status }).status === 200) this.applied.set(`${INSTALLATION}/status`, key);
  }

  /** Creates, updates or leaves one TigeraStatus (written only when a condition changes). */
  private setStatus(name: string, conditions: Condition[]): void {
    const path = `${STATUSES}/${name}`;
    let ts = this.api.get(path);
    if (!ts) {
      ts = this.api.create(STATUSES, { apiVersion: 'operator.tigera.io/v1', kind: 'TigeraStatus', metadata: { name }, spec: {} }).object;
      if (!ts) return;
    }
    const before = (ts['status'] ?? {}) as Obj;
    if (sameConditions(before['conditions'], conditions)) return;
    this.api.request('PUT', `${path}/status`, { ...ts, status: { conditions: stamped(conditions, before['conditions'], now(), ts.metadata.generation ?? 1) } });
  }

  /** The APIServer controller: accepted with its finalizer, and reported Degraded with why nothing runs. */
  private async reconcileApiServer(installation: KubeObject | undefined): Promise<void> {
    const apiserver = this.api.get(APISERVER);
    if (!apiserver) {
      if (this.api.get(`${STATUSES}/apiserver`)) this.api.delete(`${STATUSES}/apiserver`);
      return;
    }
    const finalizers = finalizersOf(apiserver);
    if (apiserver.metadata.deletionTimestamp) {
      if (finalizers.includes(APISERVER_FINALIZER))
        this.api.patch(APISERVER, { metadata: { finalizers: finalizers.filter((f) => f !== APISERVER_FINALIZER) } });
      return;
    }
    if (!finalizers.includes(APISERVER_FINALIZER)) this.api.patch(APISERVER, { metadata: { finalizers: [...finalizers, APISERVER_FINALIZER] } });
    const degraded = installation
      ? { reason: 'ResourceNotReady', message: APISERVER_MESSAGE }
      : { reason: 'ResourceNotFound', message: 'Installation not found' };
    const conditions = conditionsOf({ progressing: [], failing: [] }, degraded);
    this.setStatus('apiserver', conditions);
    const before = (apiserver['status'] ?? {}) as Obj;
    if (!sameConditions(before['conditions'], conditions)) {
      const fresh = this.api.get(APISERVER) ?? apiserver;
      this.api.request('PUT', `${APISERVER}/status`, {
        ...fresh,
        status: { conditions: stamped(conditions, before['conditions'], now(), fresh.metadata.generation ?? 1) },
      });
    }
  }

  /** The termination sequence of core_controller.go ("Use of Finalizers for graceful termination"). */
  private terminate(installation: KubeObject): void {
    this.log('info', 'controller_installation', 'Installation object is terminating');
    const finalizers = finalizersOf(installation);
    const kubeControllers = `/apis/apps/v1/namespaces/${NS}/deployments/calico-kube-controllers`;
    if (finalizers.includes(CONTROLLER_FINALIZER)) {
      if (this.api.get(kubeControllers)) this.api.delete(kubeControllers);
      if (this.api.list(`/api/v1/namespaces/${NS}/pods`, 'k8s-app=calico-kube-controllers').length > 0) return;
      this.api.patch(INSTALLATION, { metadata: { finalizers: finalizers.filter((f) => f !== CONTROLLER_FINALIZER) } });
      return;
    }
    if (finalizers.some((f) => f !== CLEANUP_FINALIZER)) return;
    for (const sa of ['calico-node', 'calico-cni-plugin']) {
      const path = `/api/v1/namespaces/${NS}/serviceaccounts/${sa}`;
      const obj = this.api.get(path);
      const held = obj ? finalizersOf(obj) : [];
      if (held.includes(CNI_FINALIZER)) this.api.patch(path, { metadata: { finalizers: held.filter((f) => f !== CNI_FINALIZER) } });
    }
    if (finalizers.includes(CLEANUP_FINALIZER)) this.api.patch(INSTALLATION, { metadata: { finalizers: [] } });
  }

  /** No Installation: the status manager's OnCRNotFound removes calico's and ippools' TigeraStatus. */
  private forgetInstallation(): void {
    for (const name of ['calico', 'ippools', ...ADD_ONS.map((a) => a.name)]) if (this.api.get(`${STATUSES}/${name}`)) this.api.delete(`${STATUSES}/${name}`);
    this.applied.clear();
  }
}

/** `operator`: logs its start, then reconciles on every change it watches and on a periodic resync. */
export const tigeraOperator: Program = async (ctx) => {
  const op = new Operator(ctx);
  op.log('info', 'setup', `Version: ${OPERATOR_VERSION}`);
  op.log('info', 'setup', `Go Version: go1.25.7`);
  op.log('info', 'setup', 'Starting the Cmd.');
  let running = false;
  let again = false;
  const kick = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      do {
        again = false;
        try {
          await op.reconcile();
        } catch (e) {
          op.log('error', 'controller_installation', 'Reconciler error', { error: e instanceof Error ? e.message : String(e) });
        }
      } while (again && !ctx.signal.aborted);
      running = false;
    })();
  };
  const stops: Array<() => void> = [];
  for (const path of [
    `${OPERATOR}/installations`,
    `${OPERATOR}/apiservers`,
    `/apis/apps/v1/namespaces/${NS}/daemonsets`,
    `/apis/apps/v1/namespaces/${NS}/deployments`,
  ]) {
    try {
      stops.push(ctx.api.watch(path, () => kick()));
    } catch {
      // A kind not served yet (its CRD not created): the resync still finds it.
    }
  }
  const timer = setInterval(kick, RESYNC_MS);
  kick();
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  clearInterval(timer);
  for (const stop of stops) stop();
  return 0;
};

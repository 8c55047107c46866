// Node heartbeats as read: each condition's lastHeartbeatTime is the kubelet's last status report, which it
// makes every nodeStatusReportFrequency when nothing changes. Computed on read, so a quiet cluster writes
// nothing to keep its nodes looking alive. The same holds for each node's Lease in kube-node-lease.
import { k8sTime } from '../apimachinery/time.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { Node } from '../apimachinery/types.js';
import { stableUid } from '../apimachinery/generated-names.js';

/** How often the kubelet reports node status when nothing changes (nodeStatusReportFrequency). */
const STATUS_REPORT_MS = 5 * 60 * 1000;

/** The Node with heartbeats as fresh as the kubelet's last report before `now`. */
export function withHeartbeats(node: KubeObject, now = Date.now()): KubeObject {
  const created = Date.parse(node.metadata.creationTimestamp ?? '');
  const beat = k8sTime(now - ((now - created) % STATUS_REPORT_MS));
  // A Node posted through the API may have no status at all (the apiserver accepts one with only a name).
  const status = (node as Node).status ?? {};
  if (!status.conditions) return node;
  const conditions = status.conditions.map((c) =>
    c.type === 'NetworkUnavailable' ? c : { ...c, lastHeartbeatTime: beat > c.lastTransitionTime! ? beat : c.lastTransitionTime! },
  );
  return { ...node, status: { ...status, conditions } };
}

/** The node's Lease in kube-node-lease, renewed every 10 s by its kubelet (computed when read). */
export function nodeLease(node: KubeObject, now = Date.now()): KubeObject {
  const created = Date.parse(node.metadata.creationTimestamp ?? new Date(now).toISOString());
  const offset = parseInt(String(node.metadata.uid ?? '0').slice(0, 4), 16) % 10_000 || 0;
  const renew = Math.max(created, now - ((now - offset) % 10_000));
  const micro = new Date(renew).toISOString().replace(/Z$/, '000Z');
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: node.metadata.name,
      namespace: 'kube-node-lease',
      uid: stableUid(`lease:${node.metadata.uid}`),
      resourceVersion: node.metadata.resourceVersion ?? '1',
      creationTimestamp: node.metadata.creationTimestamp!,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.metadata.name, uid: node.metadata.uid }],
    },
    spec: { holderIdentity: node.metadata.name, leaseDurationSeconds: 40, renewTime: micro },
  };
}

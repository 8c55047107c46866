// Node heartbeats as read: each condition's lastHeartbeatTime is the kubelet's last status report, which it
// makes every nodeStatusReportFrequency when nothing changes. Computed on read, so a quiet cluster writes
// nothing to keep its nodes looking alive.
import { k8sTime } from '../time.js';
import type { KubeObject } from './object.js';
import type { Node } from './types.js';

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

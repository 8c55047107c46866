// The apiserver's validation of object metadata (k8s.io/apimachinery validation), as an oracle: what a
// real cluster never stores. Names by kind (DNS-1123 subdomain, or label for namespaces and services),
// label keys and values, the 256 KiB annotation budget, ownerReferences as a list of references.
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const ANNOTATIONS_MAX = 256 * 1024;

function nameProblem(kind: string, name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '') return 'metadata.name: missing';
  const label = kind === 'Namespace' || kind === 'Service';
  if (label ? name.length > 63 || !DNS1123_LABEL.test(name) : name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    return `metadata.name: invalid ${label ? 'DNS-1123 label' : 'DNS-1123 subdomain'} ${JSON.stringify(name.slice(0, 40))}`;
  }
  return undefined;
}

function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) return 'prefix';
  if (name.length > 63 || !LABEL_NAME.test(name)) return 'name';
  return undefined;
}

export function kubeObjectProblem(obj: any): string | undefined {
  const m = obj?.metadata;
  if (!m || typeof m !== 'object') return 'metadata: missing';
  const kind = String(obj.kind ?? '');
  const n = nameProblem(kind, m.name);
  if (n) return n;
  if (m.labels !== undefined) {
    if (m.labels === null || typeof m.labels !== 'object' || Array.isArray(m.labels)) return 'metadata.labels: not a map';
    for (const [k, v] of Object.entries(m.labels)) {
      if (labelKeyProblem(k)) return `metadata.labels: invalid key (${k.length} chars)`;
      if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) return `metadata.labels: invalid value for ${k.slice(0, 30)}`;
    }
  }
  if (m.annotations !== undefined) {
    if (m.annotations === null || typeof m.annotations !== 'object' || Array.isArray(m.annotations)) return 'metadata.annotations: not a map';
    let size = 0;
    for (const [k, v] of Object.entries(m.annotations)) {
      if (labelKeyProblem(k)) return `metadata.annotations: invalid key (${k.length} chars)`;
      if (typeof v !== 'string') return 'metadata.annotations: value not a string';
      size += k.length + v.length;
    }
    if (size > ANNOTATIONS_MAX) return `metadata.annotations: ${size} bytes, over 256 KiB`;
  }
  if (m.ownerReferences !== undefined) {
    if (!Array.isArray(m.ownerReferences)) return 'metadata.ownerReferences: not a list';
    for (const r of m.ownerReferences) {
      if (!r || typeof r !== 'object' || ['apiVersion', 'kind', 'name', 'uid'].some((f) => typeof r[f] !== 'string' || r[f] === ''))
        return 'metadata.ownerReferences: invalid reference';
      if (r.controller !== undefined && typeof r.controller !== 'boolean') return 'metadata.ownerReferences: controller not a boolean';
    }
  }
  const replicas = obj?.spec?.replicas;
  if (
    kind === 'Deployment' &&
    replicas !== undefined &&
    (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0 || replicas > 2_147_483_647)
  )
    return `spec.replicas: invalid ${JSON.stringify(replicas)}`;
  return undefined;
}

// acs/_format.py: the -o table views of clusters, node pools and versions.
type Row = Record<string, unknown>;

function cluster(r: Row) {
  return {
    name: r['name'],
    location: r['location'],
    resourceGroup: r['resourceGroup'],
    kubernetesVersion: r['kubernetesVersion'],
    currentKubernetesVersion: r['currentKubernetesVersion'],
    provisioningState: r['provisioningState'],
    fqdn: r['fqdn'] || r['privateFqdn'] || null,
  };
}

function pool(r: Row) {
  return {
    name: r['name'],
    osType: r['osType'],
    kubernetesVersion: r['orchestratorVersion'],
    vmSize: r['vmSize'],
    osDiskSizeGB: r['osDiskSizeGb'],
    count: r['count'],
    maxPods: r['maxPods'],
    provisioningState: r['provisioningState'],
    mode: r['mode'],
  };
}

function versionKey(v: string): number[] {
  return v
    .replace(/\(preview\)$/, '')
    .split('.')
    .map(Number);
}

function compareVersions(a: string, b: string): number {
  const x = versionKey(a);
  const y = versionKey(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

export const aksShowTable = (r: unknown) => [cluster(r as Row)];
export const aksListTable = (r: unknown) => (r as Row[]).map(cluster);
export const poolShowTable = (r: unknown) => [pool(r as Row)];
export const poolListTable = (r: unknown) => (r as Row[]).map(pool);

/** aks_versions_table_format */
export function versionsTable(result: unknown): unknown {
  const orchestrators = ((result as Row)['orchestrators'] ?? []) as Row[];
  const preview = new Set(orchestrators.filter((o) => o['isPreview']).map((o) => o['orchestratorVersion'] as string));
  const mark = (v: string) => (preview.has(v) ? `${v}(preview)` : v);
  const rows = orchestrators.map((o) => {
    const upgrades = ((o['upgrades'] ?? []) as Row[]).map((u) => u['orchestratorVersion'] as string);
    const shown = upgrades.length > 0 ? [...upgrades].sort(compareVersions).map(mark) : ['None available'];
    return { kubernetesVersion: mark(o['orchestratorVersion'] as string), upgrades: shown.join(', ') };
  });
  return rows.sort((a, b) => compareVersions(b.kubernetesVersion, a.kubernetesVersion));
}

/** aks_upgrades_table_format: one row, the control plane's version and its upgrades (sorted, "(preview)" marked). */
export function upgradesTable(result: unknown): unknown {
  const r = result as Row;
  const control = (r['controlPlaneProfile'] ?? {}) as Row;
  const offered = (control['upgrades'] ?? []) as Row[];
  const preview = new Set(offered.filter((u) => u['isPreview']).map((u) => u['kubernetesVersion'] as string));
  const versions = offered.map((u) => u['kubernetesVersion'] as string);
  const shown = versions.length > 0 ? [...versions].sort(compareVersions).map((v) => (preview.has(v) ? `${v}(preview)` : v)) : ['None available'];
  return { name: r['name'], resourceGroup: r['resourceGroup'], masterVersion: control['kubernetesVersion'] || 'unknown', upgrades: shown.join(', ') };
}

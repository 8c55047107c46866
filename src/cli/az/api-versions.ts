// The api-versions az 2.45 sends (docs/clients.md §2.3); the server must accept these.
export const API = {
  resources: '2021-04-01',
  network: '2022-01-01',
  /** `az network route-table` (AAZ) is one version older than vnets and NSGs. */
  routeTables: '2021-08-01',
  /** `az network public-ip` and `az network lb` show/list/delete (AAZ). */
  publicIp: '2022-05-01',
  /**
   * `az network nat gateway` runs the Network SDK of the `latest` profile, 2022-01-01 (the vnet version). Debian's
   * build cannot run it even with the shim (docs/clients.md §3.13); upstream az sends this version.
   */
  natGateway: '2022-01-01',
  containerService: '2022-11-01',
  /**
   * `aks create --network-plugin-mode` (newer az only): 2022-11-01 has no networkPluginMode, so aksemu
   * sends that one create with the newest stable version the server answers.
   */
  containerServiceOverlay: '2026-04-01',
  /** `az aks get-versions` (the container_services operation group). */
  orchestrators: '2019-04-01',
  /** `az vm` (azure-mgmt-compute v2022_11_01). */
  compute: '2022-11-01',
  roleAssignments: '2020-04-01-preview',
  roleDefinitions: '2018-01-01-preview',
} as const;

// The api-versions az 2.45 sends (spec §6.3); the server must accept these.
export const API = {
  resources: '2021-04-01',
  network: '2022-01-01',
  /** `az network route-table` (AAZ) is one version older than vnets and NSGs. */
  routeTables: '2021-08-01',
  containerService: '2022-11-01',
  /** `az aks get-versions` (the container_services operation group). */
  orchestrators: '2019-04-01',
  roleAssignments: '2020-04-01-preview',
  roleDefinitions: '2018-01-01-preview',
} as const;

// Why an example fails, in one line per kind of failure: the first rule whose pattern matches what the run got
// names the reason; otherwise the refusal's code or the first member that differs does. The expected-results file
// records each failing example's reason, so the counts by reason say what is left to do, or what aksemu does not
// emulate on purpose.
export interface ReasonRule {
  /** Matched against what the run got, or (`example`) against the example's key. */
  pattern?: RegExp;
  example?: RegExp;
  reason: string;
}

const INCONSISTENT = "the example's response contradicts its own request";

export const REASON_RULES: readonly ReasonRule[] = [
  // Examples that cannot pass against any service: read by hand, each names what contradicts what.
  { example: /VirtualNetworkCreateSubnetWithAddressPrefixes/, reason: `${INCONSISTENT} (asks for 10.0.1.0/28, shows 10.1.0.0/28)` },
  { example: /RouteTableCreate\.json/, reason: `${INCONSISTENT} (shows disableBgpRoutePropagation true, not asked for)` },
  { example: /SubnetCreateWithSharingScope/, reason: `${INCONSISTENT} (shows sharingScope and defaultOutboundAccess, not asked for)` },
  { example: /SubnetCreateWithDelegation/, reason: `${INCONSISTENT} (shows a delegation, not asked for)` },
  { example: /SubnetGetWithDelegation/, reason: "the example's ids name another resource group than its parameters" },
  { example: /SubnetList\.json/, reason: 'lists two subnets of one VNet with the same prefix, which Network refuses' },
  { example: /2022-06-01\/ManagedClusters_List\//, reason: "the example's items have ids without a resource group, so the suite cannot create them" },
  { example: /AgentPools_Update\.json/, reason: 'asks for count 3 with maxCount 2, which AKS refuses too' },
  { pattern: /NoRegisteredProviderFound/, reason: 'api-version not served (issue 14 item 1)' },
  { pattern: /InvalidResourceType|MethodNotAllowed/, reason: 'operation not served (issue 14 item 4 adds some)' },
  { pattern: /SystemPoolSkuTooLow/, reason: 'system pool of Standard_DS1_v2, below what AKS accepts for system pools (AKS refuses it too)' },
  { pattern: /K8sVersionNotSupported/, reason: 'a Kubernetes version AKS no longer offers' },
  {
    pattern: /Could not find member '(ipConfigurationProfiles|serviceEndpointPolicies)'/,
    reason: 'refers to a Network resource aksemu does not serve',
  },
  { pattern: /Could not find member/, reason: 'a request member aksemu does not model (strict mode refuses it)' },
  {
    pattern: /ipConfigurations \([1-9]\d* items\): example \[\{"id":"[^"]*Microsoft\.Network\/load/,
    reason: 'shows back-references from load balancers the example does not create',
  },
  {
    pattern: /servicePrincipalProfile\.clientId: example "clientid", aksemu "msi"/,
    reason: "the example's response shows a service principal (clientid) its request does not give",
  },
];

export function reasonFor(key: string, got: string): string {
  const rule = REASON_RULES.find((r) => (r.example ? r.example.test(key) : r.pattern?.test(got)));
  if (rule) return rule.reason;
  const refused = /^(setup: \S+ )?(\d{3}) (\w+)/.exec(got);
  if (refused) return `${refused[1] ? 'setup ' : ''}refused: ${refused[3]}`;
  const differs = /^([^:]+):/.exec(got);
  return differs ? `differs: ${differs[1]!.replace(/\[[^\]]*\]/g, '[]')}` : got.slice(0, 100);
}

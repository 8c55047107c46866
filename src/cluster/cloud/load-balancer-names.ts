// How cloud-provider-azure names what it makes for a Service of type LoadBalancer (docs/aks-rules.md §12.1), read
// from its source (kubernetes-sigs/cloud-provider-azure pkg/provider/azure_standard.go, azure_loadbalancer.go,
// pkg/consts/consts.go) and from k8s.io/cloud-provider's DefaultLoadBalancerName. AKS runs it with the cluster name
// `kubernetes`, hence the load balancers `kubernetes` and `kubernetes-internal` and the public IPs `kubernetes-a…`.

/** The cluster name AKS gives cloud-provider-azure: the load balancer's and the backend pool's name. */
export const AKS_CLUSTER_NAME = 'kubernetes';
/** consts.InternalLoadBalancerNameSuffix. */
const INTERNAL_SUFFIX = '-internal';
/** consts.FrontendIPConfigNameMaxLength, LoadBalancerRuleNameMaxLength and PIPPrefixNameMaxLength. */
const NAME_MAX = 80;
/** consts.IPFamilySuffixLength ("-IPv4", "-IPv6"), kept free even on a single-stack Service. */
const FAMILY_SUFFIX = 5;

export const ANNOTATIONS = {
  internal: 'service.beta.kubernetes.io/azure-load-balancer-internal',
  internalSubnet: 'service.beta.kubernetes.io/azure-load-balancer-internal-subnet',
  pipName: 'service.beta.kubernetes.io/azure-pip-name',
  resourceGroup: 'service.beta.kubernetes.io/azure-load-balancer-resource-group',
  ipv4: 'service.beta.kubernetes.io/azure-load-balancer-ipv4',
  disableFloatingIp: 'service.beta.kubernetes.io/azure-disable-load-balancer-floating-ip',
} as const;

/**
 * k8s.io/cloud-provider DefaultLoadBalancerName: "a" and the uid without its dashes, at most 32 characters
 * (GCE wants a leading letter, AWS at most 32 bytes). cloud-provider-azure's GetLoadBalancerName returns it, and
 * uses it as the frontend's name and the prefix of the rules and probes.
 */
export function defaultLoadBalancerName(uid: string): string {
  return `a${uid}`.replaceAll('-', '').slice(0, 32);
}

/** getPublicIPName: `<cluster>-<DefaultLoadBalancerName>`, cut to fit the family suffix. */
export function publicIpName(uid: string): string {
  return `${AKS_CLUSTER_NAME}-${defaultLoadBalancerName(uid)}`.slice(0, NAME_MAX - FAMILY_SUFFIX);
}

/** getDefaultFrontendIPConfigName: the base name, with `-<subnet>` for an internal Service naming its subnet. */
export function frontendName(uid: string, internalSubnet?: string): string {
  const base = defaultLoadBalancerName(uid);
  return internalSubnet ? `${base}-${internalSubnet}`.slice(0, NAME_MAX - FAMILY_SUFFIX) : base;
}

/**
 * getLoadBalancerRuleName: `<prefix>-<protocol>-<port>`, or `<prefix>-<subnet>-<protocol>-<port>` with the subnet
 * cut so the name stays within 80 characters. A port's health probe has the rule's name; the externalTrafficPolicy
 * Local probe is named as a TCP rule on the health-check node port.
 */
export function ruleName(uid: string, protocol: string, port: number, internalSubnet?: string): string {
  const prefix = defaultLoadBalancerName(uid);
  const plain = `${prefix}-${protocol}-${port}`;
  if (!internalSubnet) return plain;
  const max = NAME_MAX - FAMILY_SUFFIX;
  const subnet = plain.length + internalSubnet.length + 1 > max ? internalSubnet.slice(0, max - plain.length - 1) : internalSubnet;
  return `${prefix}-${subnet}-${protocol}-${port}`;
}

/** The load balancer a Service's frontend lives on. */
export function loadBalancerName(internal: boolean): string {
  return internal ? `${AKS_CLUSTER_NAME}${INTERNAL_SUFFIX}` : AKS_CLUSTER_NAME;
}

/** consts.IsK8sServiceUsingInternalLoadBalancer: the annotation is exactly "true". */
export function isInternal(annotations: Record<string, string> | undefined): boolean {
  return annotations?.[ANNOTATIONS.internal] === 'true';
}

// The Azure CLI's own argument checks for `aks create` / `aks nodepool add` (azure-cli acs/_validators.py @010cc060;
// docs/aks-rules.md §2.4 M8). They run before any request, print as az prints them, and are shared by `plan` and `az`.

export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/** argparse's own message for an int flag given something else (az exits 2 with it). */
export function parseIntFlag(flag: string, value: string): number {
  if (!/^[+-]?\d+$/.test(value.trim())) throw new CliUsageError(`argument ${flag}: invalid int value: '${value}'`);
  return Number(value);
}

export function validateNodepoolName(name: string): void {
  if (name.length > 12) throw new CliUsageError('--nodepool-name can contain at most 12 characters');
  if (!/^[a-zA-Z0-9]*$/.test(name)) throw new CliUsageError('--nodepool-name should contain only alphanumeric characters');
}

function validateCountRange(flag: '--min-count' | '--max-count', value: number): void {
  if (value < 0 || value > 1000) throw new CliUsageError(`${flag} must be in the range [0,1000]`);
}

export function validateMaxSurge(value: string): void {
  const text = value.trim();
  const n = Number(text.endsWith('%') ? text.slice(0, -1) : text);
  if (!/^-?\d+%?$/.test(text) || Number.isNaN(n)) throw new CliUsageError('--max-surge should be an int or percentage');
  if (n <= 0) throw new CliUsageError('--max-surge must be positive');
}

/** The autoscaler flags as az checks them together. */
export function validateAutoscaler(opts: { enabled: boolean; minCount?: number; maxCount?: number; nodeCount?: number }): void {
  if (!opts.enabled) {
    if (opts.minCount !== undefined || opts.maxCount !== undefined) {
      throw new CliUsageError('min-count and max-count are required for --enable-cluster-autoscaler, please use the flag');
    }
    return;
  }
  if (opts.minCount === undefined || opts.maxCount === undefined) {
    throw new CliUsageError('Please specify both min-count and max-count when --enable-cluster-autoscaler enabled');
  }
  validateCountRange('--min-count', opts.minCount);
  validateCountRange('--max-count', opts.maxCount);
  if (opts.minCount > opts.maxCount) throw new CliUsageError('Value of min-count should be less than or equal to value of max-count');
  if (opts.nodeCount !== undefined && (opts.nodeCount < opts.minCount || opts.nodeCount > opts.maxCount)) {
    throw new CliUsageError('node-count is not in the range of min-count and max-count');
  }
}

// Errors as az 2.45 reports them: one `ERROR: ...` block on stderr and an exit code
// (1 for a failed command, 2 for unusable arguments, 3 when the server answered 404).

export class AzCliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'AzCliError';
  }
}

/** argparse-level problems: az exits 2 with them. */
export class AzUsageError extends AzCliError {
  constructor(message: string) {
    super(message, 2);
    this.name = 'AzUsageError';
  }
}

interface OdataError {
  code?: string;
  message?: string;
  target?: string;
  details?: OdataError[];
  innererror?: unknown;
  additionalInfo?: { type?: string; info?: unknown }[];
}

/** Python's json.dumps(x, indent=4) for plain JSON values. */
function pyJson(value: unknown): string {
  return JSON.stringify(value, null, 4).replace(/^(\s*"[^"]*"):/gm, '$1:');
}

/** azure-core's ODataV4Format.__str__ (and azure-mgmt-core's additional info), line for line. */
export function formatOdataError(error: OdataError): string {
  let text = `(${error.code}) ${error.message}\nCode: ${error.code}\nMessage: ${error.message}`;
  if (error.target) text += `\nTarget: ${error.target}`;
  if (error.details && error.details.length > 0) {
    text += '\nException Details:';
    // azure-core joins each detail's lines without a leading newline; kept as az prints it.
    for (const detail of error.details)
      text += formatOdataError(detail)
        .split('\n')
        .map((s) => `\t${s}`)
        .join('\n');
  }
  if (error.innererror && typeof error.innererror === 'object' && Object.keys(error.innererror).length > 0) {
    text += `\nInner error: ${pyJson(error.innererror)}`;
  }
  if (error.additionalInfo && error.additionalInfo.length > 0) {
    text += '\nAdditional Information:';
    for (const info of error.additionalInfo) text += `Type: ${info.type}\nInfo: ${pyJson(info.info)}\n`;
  }
  return text;
}

/** The error member of an ARM error body: {"error":{…}} or the bare AKS style {code, message, …}. */
export function odataErrorOf(body: unknown): OdataError | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const inner = record['error'] ?? record;
  if (typeof inner !== 'object' || inner === null) return undefined;
  const err = inner as OdataError;
  return typeof err.code === 'string' || typeof err.message === 'string' ? err : undefined;
}

/** An HTTP answer az's SDK does not accept (HttpResponseError). 404 exits 3 (ResourceNotFoundError). */
export class HttpResponseError extends AzCliError {
  constructor(
    readonly status: number,
    readonly body: unknown,
    rawText: string,
    reason: string,
  ) {
    const odata = odataErrorOf(body);
    super(
      odata ? formatOdataError(odata) : `Operation returned an invalid status '${reason}'${rawText ? `\nContent: ${rawText}` : ''}`,
      status === 404 ? 3 : 1,
    );
    this.name = 'HttpResponseError';
  }
}

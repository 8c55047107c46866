// apimachinery's string validators (k8s.io/apimachinery/pkg/util/validation), with their exact messages:
// each returns the list of what is wrong with a value, empty when it is valid.

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${QUALIFIED_NAME})?`;

// No pattern has ambiguous repetition: each runs in linear time, even on a 3 MB value.
const anchored = (fmt: string) => new RegExp(`^${fmt}$`);
const RE = {
  label: anchored(DNS1123_LABEL),
  subdomain: anchored(DNS1123_SUBDOMAIN),
  dns1035: anchored(DNS1035_LABEL),
  qualified: anchored(QUALIFIED_NAME),
  labelValue: anchored(LABEL_VALUE),
};

const maxLenError = (n: number) => `must be no more than ${n} characters`;
const EMPTY = 'must be non-empty';

/** validation.RegexError: the message, its examples and the pattern (examples joined as Go joins them). */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** What is wrong with a value that must match a pattern within a length: the apimachinery validators' shape. */
function patterned(value: string, max: number, re: RegExp, msg: string, fmt: string, ...examples: string[]): string[] {
  const errs: string[] = [];
  if (value.length > max) errs.push(maxLenError(max));
  if (!re.test(value)) errs.push(regexError(msg, fmt, ...examples));
  return errs;
}

export const isDNS1123Label = (value: string) =>
  patterned(
    value,
    63,
    RE.label,
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
    DNS1123_LABEL,
    'my-name',
    '123-abc',
  );

export const isDNS1123Subdomain = (value: string) =>
  patterned(
    value,
    253,
    RE.subdomain,
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
    DNS1123_SUBDOMAIN,
    'example.com',
  );

export const isDNS1035Label = (value: string) =>
  patterned(
    value,
    63,
    RE.dns1035,
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
    DNS1035_LABEL,
    'my-name',
    'abc-123',
  );

/** path.IsValidPathSegmentName: what RBAC names must be (they appear in URLs as they are). */
export function isPathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const errs: string[] = [];
  for (const c of ['/', '%']) if (value.includes(c)) errs.push(`may not contain '${c}'`);
  return errs;
}

const QUALIFIED_ERROR = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** IsQualifiedName: label keys, annotation keys (lower-cased first), finalizers: `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/', 3);
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY}`);
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_ERROR, QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY}`);
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!RE.qualified.test(name)) errs.push(`name part ${regexError(QUALIFIED_ERROR, QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export const isValidLabelValue = (value: string) =>
  patterned(
    value,
    63,
    RE.labelValue,
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
    LABEL_VALUE,
    'MyValue',
    'my_value',
    '12345',
  );

/** How a kind's names are validated (the `nameRule` of its row in resources.ts). */
export type NameRule = 'subdomain' | 'label' | 'dns1035' | 'path-segment';

export const NAME_RULES: Record<NameRule, (value: string) => string[]> = {
  subdomain: isDNS1123Subdomain,
  label: isDNS1123Label,
  dns1035: isDNS1035Label,
  'path-segment': isPathSegmentName,
};

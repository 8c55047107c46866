// The string formats a CRD schema may name and the apiserver checks (go-openapi's strfmt registry as
// staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/validation/formats.go allows them). A format
// not listed here is not checked, as the apiserver ignores formats it does not know.
import { isIP } from 'node:net';

const FORMATS: Record<string, (v: string) => boolean> = {
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T'))),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  uuid: (v) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(v),
  ipv4: (v) => isIP(v) === 4,
  ipv6: (v) => isIP(v) === 6,
  cidr: (v) => {
    const [ip, bits, extra] = v.split('/');
    const family = isIP(ip ?? '');
    return extra === undefined && family !== 0 && /^\d{1,3}$/.test(bits ?? '') && Number(bits) <= (family === 4 ? 32 : 128);
  },
  mac: (v) => /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i.test(v),
  hostname: (v) => v.length <= 255 && /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(v),
  email: (v) => /^[^@\s]+@[^@\s]+$/.test(v),
  byte: (v) => /^[A-Za-z0-9+/]*={0,2}$/.test(v) && v.length % 4 === 0,
  duration: (v) => /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h|d|w))+$/.test(v),
};

/** Why v is not of that format, or undefined when it is (or the format is not checked). */
export function formatProblem(format: string, v: string): string | undefined {
  const check = Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined;
  return check && !check(v) ? `not a ${format}` : undefined;
}

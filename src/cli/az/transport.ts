// One HTTPS exchange with the server, trusting only its CA. An interface so tests can record the
// requests a command builds without a server.
import { request } from 'node:https';

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  text: string;
}

export interface Transport {
  send(req: HttpRequest): Promise<HttpResponse>;
}

export class HttpsTransport implements Transport {
  constructor(private readonly ca: string) {}

  send(req: HttpRequest): Promise<HttpResponse> {
    return new Promise((resolve, reject) => {
      const headers = { ...req.headers };
      if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
      const r = request(req.url, { method: req.method, headers, ca: this.ca }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ status: res.statusCode ?? 0, headers: out, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      r.on('error', reject);
      if (req.body !== undefined) r.write(req.body);
      r.end();
    });
  }
}

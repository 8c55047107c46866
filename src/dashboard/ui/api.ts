// The dashboard's JSON API (docs/dashboard.md §3), as the pages call it: same origin, the session cookie, errors
// in ARM's envelope turned into an ApiError the page shows.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

async function answer<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const err = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
    throw new ApiError(res.status, err?.code ?? `HTTP${res.status}`, err?.message ?? (text.slice(0, 300) || res.statusText));
  }
  return body as T;
}

export async function getJson<T>(path: string, query: Record<string, string> = {}): Promise<T> {
  const qs = new URLSearchParams(query).toString();
  const res = await fetch(`/ui/api/${path}${qs ? `?${qs}` : ''}`, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  return answer<T>(res);
}

export async function postJson<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`/ui/api/${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return answer<T>(res);
}

// Who may see the dashboard (docs/dashboard.md §2): one-time login tokens, each exchanged once for a session
// cookie; sessions live in memory only, so a restart signs everyone out and prints a new link.
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** The session cookie's name; its Path is /ui, so ARM requests never carry it. */
export const SESSION_COOKIE = 'aksemu_ui';
/** 12 hours, in seconds (the cookie's Max-Age and the session's lifetime). */
export const SESSION_SECONDS = 43_200;
const MAX_SESSIONS = 64;
/** Login links not yet used; more than this and the oldest goes. */
const MAX_TOKENS = 64;
/** 32 random bytes, base64url: 43 characters. */
const SECRET = /^[A-Za-z0-9_-]{43}$/;

function secret(): string {
  return randomBytes(32).toString('base64url');
}

/** Compared in constant time, so a guess learns nothing from how long the answer took. */
function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class DashboardAuth {
  /** Unused login tokens, oldest first (a Map keeps insertion order). */
  private readonly tokens = new Set<string>();
  /** Session id → when it expires (ms); oldest first. */
  private readonly sessions = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new one-time login token. */
  newLoginToken(): string {
    const token = secret();
    this.tokens.add(token);
    while (this.tokens.size > MAX_TOKENS) this.tokens.delete(this.tokens.values().next().value!);
    return token;
  }

  /** Spends a login token: a new session id when it was valid and unused, else undefined. */
  redeem(token: string | null): string | undefined {
    if (token === null || !SECRET.test(token)) return undefined;
    const known = [...this.tokens].find((t) => sameSecret(t, token));
    if (known === undefined) return undefined;
    this.tokens.delete(known);
    const session = secret();
    this.sessions.set(session, this.now() + SESSION_SECONDS * 1000);
    while (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    return session;
  }

  /** The session a request's Cookie header names, when it is one of ours and has not expired. */
  sessionOf(cookieHeader: string | undefined): string | undefined {
    const id = cookieValue(cookieHeader, SESSION_COOKIE);
    if (id === undefined || !SECRET.test(id)) return undefined;
    for (const [session, expires] of this.sessions) {
      if (!sameSecret(session, id)) continue;
      if (expires > this.now()) return session;
      this.sessions.delete(session);
      return undefined;
    }
    return undefined;
  }
}

/** The Set-Cookie header that starts a session. */
export function sessionCookie(session: string): string {
  return `${SESSION_COOKIE}=${session}; Path=/ui; HttpOnly; Secure; SameSite=Strict; Max-Age=${SESSION_SECONDS}`;
}

/** One cookie's value from a Cookie header (RFC 6265 §5.4: `name=value` pairs joined by `; `). */
function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined || header.length > 8192) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

// One log line per call, whatever the text holds: control characters (C0, DEL, C1) and Unicode's
// line separators are written as escapes (\n, \u001b…), so text a client chose — an api-version, a
// name quoted in an error, a stack trace's message — can never begin a line of its own.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (ch) => SHORT[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

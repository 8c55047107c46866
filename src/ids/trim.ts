// Trailing slashes off an id or path, by a loop: `s.replace(/\/+$/, '')` backtracks quadratically on a run of
// slashes that does not end the text (an id from a body with a million slashes and one letter after held the
// event loop for minutes), and ids and paths come from clients.

/** The text without its trailing slashes. */
export function trimTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '/') end--;
  return text.slice(0, end);
}

// The sentences of a member's description that speak of its default: many AKS defaults are stated only in prose
// ("If not specified, the default is 1."), not as a schema `default`. Shared by the spec and package readers.

/**
 * Those sentences of `text` that mention a default, joined by a space; undefined when none does. A line break
 * ends a sentence too (a spec's title and description are passed as two lines).
 */
export function defaultNote(text) {
  if (typeof text !== 'string') return undefined;
  const sentences = text
    .split('\n')
    .flatMap((line) =>
      line
        .replace(/\s+/g, ' ')
        .trim()
        .split(/(?<=[.!?])\s+(?=[A-Z'"`(\[])/),
    )
    .filter((s) => /\bdefault/i.test(s));
  return sentences.length > 0 ? sentences.join(' ').trim() : undefined;
}

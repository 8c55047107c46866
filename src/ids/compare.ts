// ARM compares resource ids, names, types and its other words without regard to case (ordinal, ignoring case),
// and keeps each one as it was written; the template language and az compare the same way. These two functions
// are that comparison, for every layer: the store keys entries by it, so they sit below the store.

/** Whether a and b name the same thing; false when either is missing (undefined or null). */
export function sameId(a: string | null | undefined, b: string | null | undefined): boolean {
  return a != null && b != null && (a === b || a.toLowerCase() === b.toLowerCase());
}

/** The form an id or name is keyed by in maps, sets and the store: two keys are equal exactly when sameId says so. */
export function idKey(id: string): string {
  return id.toLowerCase();
}

// ARM's limits on a resource's tags, checked wherever a request body carries them (the `tags` model
// of src/arm/schema.ts): at most 50 tags; names of 1–512 characters without '<', '>', '%', '&', '\',
// '?', '/' or control characters; values of at most 256. Lengths are .NET's (UTF-16 code units).
import { emptyTagName, invalidTagNameCharacters, tagNameTooLong, tagValueTooLong, tooManyTags } from './errors.js';

const MAX_TAGS = 50;
const MAX_TAG_NAME_LENGTH = 512;
const MAX_TAG_VALUE_LENGTH = 256;

const RESERVED_IN_TAG_NAMES = /[<>%&\\?/\p{Cc}]/u;

/** Throws ARM's error for the first rule the tags break, in the order ARM checks them. */
export function validateTags(tags: Readonly<Record<string, unknown>>): void {
  const names = Object.keys(tags);
  if (names.length > MAX_TAGS) throw tooManyTags(names.length, MAX_TAGS);
  if (names.some((name) => name.trim() === '')) throw emptyTagName();
  const reserved = names.filter((name) => RESERVED_IN_TAG_NAMES.test(name));
  if (reserved.length > 0) throw invalidTagNameCharacters(reserved);
  const longNames = names.filter((name) => name.length > MAX_TAG_NAME_LENGTH);
  if (longNames.length > 0) throw tagNameTooLong(longNames, MAX_TAG_NAME_LENGTH);
  const longValues = names.map((name) => tags[name]).filter((value): value is string => typeof value === 'string' && value.length > MAX_TAG_VALUE_LENGTH);
  if (longValues.length > 0) throw tagValueTooLong(longValues, MAX_TAG_VALUE_LENGTH);
}

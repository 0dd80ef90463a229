/**
 * A file's text is not a valid record. Carries what is wrong, not where: the storage adds the file
 * and turns it into a FoundryError CORRUPT (on `get`) or a reported problem (on `list`).
 */
export class FormatError extends Error {
  override readonly name = 'FormatError'
}

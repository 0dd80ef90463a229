/** A snapshot that does not fit together, found where it is read: the retriever drops the index, the kernel re-indexes. */
export class CorruptSnapshot extends Error {}

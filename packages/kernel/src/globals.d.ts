// Web-platform globals the kernel uses; every runtime it targets (Node 20+, Bun, Deno, browsers) has them.
declare function structuredClone<T>(value: T): T
declare function setTimeout(callback: (...args: never[]) => void, ms?: number): unknown
declare function clearTimeout(handle: unknown): void
declare class TextEncoder {
  encode(text: string): Uint8Array
}
declare class TextDecoder {
  decode(bytes: Uint8Array): string
}
declare const console: { log(...data: unknown[]): void }

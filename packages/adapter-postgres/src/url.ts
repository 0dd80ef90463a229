/**
 * A connection URL fit to print: the password replaced by `***`. Every message, log line and doctor
 * finding that names the database goes through this; the password itself is never printed.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    // `?password=` is also accepted by pg's connection string parser.
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***')
    return parsed.toString()
  } catch {
    // Not a URL we can parse: hide whatever sits between a `:` and the last `@` before the host.
    return url.replace(/:[^:/]*@(?=[^@]*$)/, ':***@').replace(/(password=)[^&\s]*/gi, '$1***')
  }
}

/** Remove every occurrence of the URL's password from `text` (a driver's error message may quote it). */
export function redactText(text: string, url: string): string {
  const password = passwordOf(url)
  let out = text.split(url).join(redactUrl(url))
  if (password) {
    out = out.split(password).join('***')
    const encoded = encodeURIComponent(password)
    if (encoded !== password) out = out.split(encoded).join('***')
  }
  return out
}

function passwordOf(url: string): string | undefined {
  try {
    const parsed = new URL(url)
    const password = parsed.password ? decodeURIComponent(parsed.password) : parsed.searchParams.get('password')
    return password || undefined
  } catch {
    return undefined
  }
}

/** The same server, another database: `url` with its path replaced by `/<database>`. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${encodeURIComponent(database)}`
  return parsed.toString()
}

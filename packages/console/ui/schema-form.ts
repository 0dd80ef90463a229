// A form generated from a workflow's input JSON Schema: a field for each string, number, integer,
// boolean, enum and object property (required ones marked), and a raw-JSON box for anything else.
// The server checks the input against the workflow's own schema; this only shapes what is sent.
import { html } from 'htm/preact'

export interface JsonSchema {
  type?: string | string[]
  title?: string
  description?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
  enum?: unknown[]
  const?: unknown
  anyOf?: JsonSchema[]
  default?: unknown
}

/** The raw values of a form, by field path (`a.b`): text for inputs, a boolean for checkboxes. */
export type FormValues = Record<string, string | boolean>

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'object' | 'json'

const primitive = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v)

/** The choices of an `enum`, or of an `anyOf` of `const`s (TypeBox's union of literals); undefined for neither. */
function choicesOf(schema: JsonSchema): unknown[] | undefined {
  if (Array.isArray(schema.enum) && schema.enum.length && schema.enum.every(primitive)) return schema.enum
  const consts = schema.anyOf?.map((s) => asSchema(s))
  if (consts?.length && consts.every((s) => 'const' in s && primitive(s.const))) return consts.map((s) => s.const)
  return undefined
}

function kindOf(schema: JsonSchema): Kind {
  if (choicesOf(schema)) return 'enum'
  const type = Array.isArray(schema.type) ? undefined : schema.type
  if (type === 'object') return schema.properties && Object.keys(schema.properties).length ? 'object' : 'json'
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') return type
  return 'json'
}

const asSchema = (value: unknown): JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonSchema) : {}

/** The form's first values: each field's `default`, else empty (`{}` for a JSON box of an object). */
export function initialValues(schema: unknown, path = ''): FormValues {
  const s = asSchema(schema)
  const kind = kindOf(s)
  if (kind === 'object') {
    const values: FormValues = {}
    for (const [key, child] of Object.entries(s.properties ?? {}))
      Object.assign(values, initialValues(child, path ? `${path}.${key}` : key))
    return values
  }
  const d = s.default
  if (kind === 'boolean') return { [path]: d === true }
  if (kind === 'enum') return { [path]: d === undefined ? '' : JSON.stringify(d) }
  if (kind === 'json') return { [path]: d === undefined ? (s.type === 'object' ? '{}' : '') : JSON.stringify(d, null, 2) }
  return { [path]: d === undefined ? '' : String(d) }
}

/**
 * The input the values make: numbers parsed, JSON boxes parsed; an optional field left empty (an
 * unticked box without a default, an object with nothing filled in) is left out, and so is an empty
 * required one, so that the server's check names it. Throws an Error naming a box that is not JSON.
 */
export function inputOf(schema: unknown, values: FormValues, path = '', required = true): unknown {
  const s = asSchema(schema)
  const kind = kindOf(s)
  const raw = values[path]
  if (kind === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(s.properties ?? {})) {
      const value = inputOf(child, values, path ? `${path}.${key}` : key, !!s.required?.includes(key))
      if (value !== undefined) out[key] = value
    }
    return required || Object.keys(out).length ? out : undefined
  }
  if (kind === 'boolean') return raw === true || required || s.default !== undefined ? raw === true : undefined
  if (typeof raw !== 'string' || raw.trim() === '') return undefined
  if (kind === 'enum') return JSON.parse(raw)
  if (kind === 'number' || kind === 'integer') return Number.isNaN(Number(raw)) ? raw : Number(raw)
  if (kind === 'json') {
    try {
      return JSON.parse(raw)
    } catch {
      throw new Error(`${path || 'input'}: not valid JSON (${raw.slice(0, 40)})`)
    }
  }
  return raw
}

const idOf = (path: string) => `field-${path.replace(/[^A-Za-z0-9_-]/g, '_') || 'input'}`

/** The fields of `schema`, editing `values` through `set`: the top object's fields bare, a nested one's in a fieldset. */
export function SchemaFields(props: {
  schema: unknown
  values: FormValues
  set: (path: string, value: string | boolean) => void
  path?: string
  name?: string
  required?: boolean
}) {
  const { values, set, path = '', required = false } = props
  const s = asSchema(props.schema)
  const kind = kindOf(s)
  const id = idOf(path)
  const label = html`${s.title ?? (props.name || 'input')}${required ? html`<span class="required" aria-hidden="true"> *</span>` : null}`
  const help = s.description ? html`<span id=${`${id}-help`} class="help">${s.description}</span>` : null
  const described = s.description ? `${id}-help` : undefined
  const text = (e: Event) => set(path, (e.target as HTMLInputElement).value)
  if (kind === 'object') {
    const fields = Object.entries(s.properties ?? {}).map(
      ([key, child]) =>
        html`<${SchemaFields} key=${key} schema=${child} values=${values} set=${set} name=${key} path=${path ? `${path}.${key}` : key} required=${!!s.required?.includes(key)} />`,
    )
    return path ? html`<fieldset class="fields"><legend>${label}</legend>${help}${fields}</fieldset>` : html`${help}${fields}`
  }
  if (kind === 'boolean')
    return html`<div class="field check"><label><input id=${id} type="checkbox" aria-describedby=${described} checked=${values[path] === true} onChange=${(e: Event) => set(path, (e.target as HTMLInputElement).checked)} /> ${label}</label>${help}</div>`
  let control: unknown
  if (kind === 'enum')
    control = html`<select id=${id} aria-required=${required} aria-describedby=${described} value=${values[path]} onChange=${text}>
        <option value="">${required ? 'choose…' : '(none)'}</option>
        ${(choicesOf(s) ?? []).map((v) => html`<option value=${JSON.stringify(v)}>${String(v)}</option>`)}
      </select>`
  else if (kind === 'json')
    control = html`<textarea id=${id} class="mono" rows="3" aria-required=${required} aria-describedby=${described} value=${values[path]} onInput=${text}></textarea>`
  else {
    const number = kind === 'number' || kind === 'integer'
    control = html`<input id=${id} type=${number ? 'number' : 'text'} step=${kind === 'integer' ? '1' : number ? 'any' : undefined} aria-required=${required} aria-describedby=${described} value=${values[path]} onInput=${text} />`
  }
  return html`<div class="field"><label for=${id}>${label}${kind === 'json' ? html` <span class="help">(JSON)</span>` : null}</label>${help}${control}</div>`
}

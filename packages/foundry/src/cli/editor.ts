import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Open `text` in `$VISUAL`/`$EDITOR` as a temporary `name`, then hand what was saved to `save`. The
 * editor runs through the shell, as git runs it (`$EDITOR` may carry arguments: `code --wait`). When
 * the editor fails nothing is saved; when `save` fails the edited file is kept and the error says
 * where, so a person's work is never thrown away. Throws when no editor is set, naming `flags`.
 */
export async function withEditor<T>(
  name: string,
  text: string,
  flags: string,
  save: (edited: string) => Promise<T>,
): Promise<T> {
  const editor = process.env.VISUAL || process.env.EDITOR
  if (!editor) throw new Error(`No editor: set $EDITOR, or pass ${flags}`)
  const dir = mkdtempSync(join(tmpdir(), 'foundry-edit-'))
  const file = join(dir, name)
  let keep = false
  try {
    writeFileSync(file, text)
    const run =
      process.platform === 'win32'
        ? spawnSync(`${editor} "${file}"`, { shell: true, stdio: 'inherit' })
        : spawnSync('sh', ['-c', `${editor} "$@"`, editor, file], { stdio: 'inherit' })
    if (run.error)
      throw new Error(`Cannot run the editor ${JSON.stringify(editor)}: ${run.error.message}; nothing written`)
    if (run.status !== 0)
      throw new Error(`The editor ${JSON.stringify(editor)} exited with ${run.status ?? run.signal}; nothing written`)
    keep = true
    const saved = await save(readFileSync(file, 'utf8'))
    keep = false
    return saved
  } catch (error) {
    if (keep) throw new Error(`${(error as Error).message} (your edit is kept in ${file})`, { cause: error })
    throw error
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true })
  }
}

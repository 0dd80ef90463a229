// Preloaded with `node -r` by the cold suite: the process's CPU time (user + system, ms) as the last
// line of its stderr when it exits, so a loaded machine's waits are told apart from the work.
process.on('exit', () => {
  const used = process.cpuUsage()
  require('node:fs').writeSync(2, `\nfoundry-bench-cpu ${(used.user + used.system) / 1000}\n`)
})

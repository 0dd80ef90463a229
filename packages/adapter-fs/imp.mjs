const which = process.argv[2]
const t0 = performance.now()
await import(which)
console.log(which, (performance.now() - t0).toFixed(1), 'ms; since start', performance.now().toFixed(1))

// update-prices.mjs: regenerate pkg/spend/prices.json, the list prices
// ccfilter estimates a cost with when the input reports none, from the
// npm package @pydantic/genai-prices (maintained by Pydantic, MIT; the
// data of https://github.com/pydantic/genai-prices).
//
//   node scripts/update-prices.mjs [VERSION]      (default: latest)
//
// It fetches the package with `npm pack` into a temporary folder, reads
// the providers ccfilter's inputs name (anthropic, openai, google) and
// writes, per model, its match rule and its price per million tokens of
// each kind ccfilter counts. Simplifications, said in docs/usage.md:
// a price that changed on a date is the one in effect today; a tiered
// price (above 200k tokens of context) is its base tier.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const version = process.argv[2] || 'latest'
const dir = mkdtempSync(join(tmpdir(), 'genai-prices-'))
const tgz = execFileSync('npm', ['pack', `@pydantic/genai-prices@${version}`, '--silent'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop()
execFileSync('tar', ['xzf', tgz], { cwd: dir })
const pkg = JSON.parse(readFileSync(join(dir, 'package', 'package.json'), 'utf8'))
const m = await import(pathToFileURL(join(dir, 'package', 'dist', 'index.js')))
const today = new Date().toISOString().slice(0, 10)

// A lookahead RE2 cannot run, as the data writes it: "^(?!X)" becomes
// {"not": {"regex": "^X"}}; any other one stops the update.
function rule(c) {
  const out = {}
  for (const [k, v] of Object.entries(c)) {
    if (k === 'or' || k === 'and') out[k] = v.map(rule)
    else if (k === 'regex' && v.startsWith('^(?!') && v.endsWith(')')) return { not: { regex: '^' + v.slice(4, -1) } }
    else if (k === 'regex' && v.includes('(?')) throw new Error(`regex ${v}: not RE2`)
    else out[k] = v
  }
  return out
}
const base = (p) => (p == null ? undefined : typeof p === 'number' ? p : p.base)
function current(prices) {
  if (!Array.isArray(prices)) return prices
  let best = prices[0].prices
  for (const p of prices) {
    const d = p.constraint && p.constraint.start_date
    if (!d || d <= today) best = p.prices
  }
  return best
}
const models = []
for (const provider of ['anthropic', 'openai', 'google']) {
  for (const x of m.findProvider({ providerId: provider }).models) {
    const p = current(x.prices)
    if (base(p.input_mtok) === undefined || base(p.output_mtok) === undefined) continue // not priced per token
    models.push({
      provider, id: x.id, match: rule(x.match),
      input: base(p.input_mtok), output: base(p.output_mtok),
      cache_read: base(p.cache_read_mtok) ?? null, cache_write: base(p.cache_write_mtok) ?? null,
    })
  }
}
const out = { source: `npm @pydantic/genai-prices ${pkg.version} (https://github.com/pydantic/genai-prices)`, generated: today, unit: 'USD per million tokens', models }
// One model a line: a price change reads as a one-line diff.
const head = JSON.stringify({ ...out, models: [] }).slice(0, -3)
writeFileSync(new URL('../pkg/spend/prices.json', import.meta.url), head + '[\n' + models.map((x) => ' ' + JSON.stringify(x)).join(',\n') + '\n]}\n')
console.log(`pkg/spend/prices.json: ${models.length} models from ${out.source}, ${today}`)

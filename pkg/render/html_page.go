package render

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
)

// The page around an HTML report: one self-contained file. Its style and
// its one script are inline, and a Content-Security-Policy allows exactly
// them (by their hashes) and nothing else: no request to any host or file,
// no other script, no style attribute, no image but data: ones. The page
// reads the same with JavaScript off: folding is <details>; the script
// adds only buttons to open or close every block, and a search.

// pageCSS: light and dark (prefers-color-scheme), print. The page is a
// column of flex items, so that what a run's end knows (its header, its
// troubles, where the time went) is written at the end, as the events
// arrive, and shown first (order).
const pageCSS = `
:root{--bg:#fff;--fg:#1f2328;--dim:#656d76;--line:#d0d7de;--box:#f6f8fa;--ok:#1a7f37;--err:#cf222e;--warn:#9a6700;--info:#0969da;--add:#e6ffec;--del:#ffebe9;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--dim:#8d96a0;--line:#30363d;--box:#161b22;--ok:#3fb950;--err:#f85149;--warn:#d29922;--info:#58a6ff;--add:#12261e;--del:#25171c}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
.page{display:flex;flex-direction:column;max-width:1100px;margin:0 auto;padding:16px 20px 48px}
.index-entry{order:-3}
.run{display:flex;flex-direction:column;border-top:1px solid var(--line);margin-top:12px}
.run>header{order:-2}.run>nav.troubles{order:-1}
.index-entry a{display:block;padding:4px 8px;border:1px solid var(--line);border-radius:6px;margin:2px 0;color:var(--fg);text-decoration:none}
.index-entry a:hover{background:var(--box)}
h1{font-size:1.5em;margin:.4em 0}h2{font-size:1.2em;margin:1.2em 0 .4em}h3{font-size:1.05em}
header .outcome{font-size:1.25em;font-weight:600;padding:6px 10px;border-radius:6px;display:inline-block;margin:4px 0}
.outcome.ok{color:var(--ok);border:1px solid var(--ok)}.outcome.failed{color:var(--err);border:1px solid var(--err)}.outcome.none{color:var(--warn);border:1px solid var(--warn)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}
dl.facts dt{color:var(--dim)}dl.facts dd{margin:0;overflow-wrap:anywhere}
nav.troubles{border:1px solid var(--err);border-radius:6px;padding:6px 12px;margin:8px 0}
nav.troubles ol{margin:4px 0;padding-left:22px}
code,pre{font-family:var(--mono);font-size:13px}
pre{background:var(--box);border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0}
.ev{position:relative;margin:6px 0;padding-left:52px}
.ln{position:absolute;left:0;top:2px;width:44px;text-align:right;color:var(--dim);font:11px var(--mono);text-decoration:none}
.ln:hover{color:var(--info)}
:target{background:color-mix(in srgb,var(--info) 12%,transparent);border-radius:4px}
.line .mark{display:inline-block;width:1.2em}
.tone-error{color:var(--err)}.tone-warn{color:var(--warn)}.tone-ok{color:var(--ok)}.tone-info{color:var(--info)}.tone-dim{color:var(--dim)}
.stats{color:var(--dim);font-size:.9em;margin-left:.4em}
.callout{border-left:4px solid var(--warn);padding:2px 10px;background:var(--box)}
.callout.tone-error{border-color:var(--err)}
.prose{overflow-wrap:anywhere}.prose table{border-collapse:collapse}.prose td,.prose th{border:1px solid var(--line);padding:2px 6px}
.prompt{border-left:4px solid var(--info);padding:2px 12px;background:var(--box);border-radius:0 6px 6px 0}
.who{font-weight:600;color:var(--info);font-size:.9em}
details{border:1px solid var(--line);border-radius:6px;margin:4px 0;background:var(--bg)}
details>summary{cursor:pointer;padding:4px 8px;list-style-position:inside;overflow-wrap:anywhere}
details>.body{padding:4px 10px 8px;border-top:1px solid var(--line)}
details.tool.error{border-color:var(--err)}
details.tool.error>summary{color:var(--err)}
details.tool.warn{border-color:var(--warn)}
details.tool.warn>summary{color:var(--warn)}
details.subagent{border-left:4px solid var(--info);margin-left:4px}
details.subagent>summary{color:var(--info)}
details.subagent.error{border-left-color:var(--err)}
details.subagent.error>summary{color:var(--err)}
.diff .add{background:var(--add)}.diff .del{background:var(--del)}.diff .hunk{color:var(--info)}
.cut{color:var(--warn);font-size:.9em;margin:2px 0}
section.outcome-block{border:1px solid var(--line);border-radius:6px;padding:4px 12px;margin:10px 0}
section.where table{border-collapse:collapse;margin:6px 0}section.where td,section.where th{border-bottom:1px solid var(--line);padding:2px 10px;text-align:left}
section.where td.n{text-align:right;font-variant-numeric:tabular-nums}
svg.bars text{fill:var(--fg);font:11px system-ui,sans-serif}svg.bars rect{fill:var(--info)}
.turn{color:var(--dim);border-top:1px dashed var(--line);margin-top:14px;padding-top:4px;font-size:.9em}
.tools-bar{position:sticky;top:0;background:var(--bg);padding:4px 0;z-index:1}
.tools-bar button{font:inherit;font-size:.85em;margin-right:6px}
.hidden-by-search{display:none}
@media print{.tools-bar,.ln{display:none}.ev{padding-left:0}details{break-inside:avoid}body{font-size:12px}pre{white-space:pre-wrap}}
`

// pageJS adds buttons to open and close every folded block, and a search
// that opens the blocks holding a word and hides the events without it.
// Without it the page reads the same.
const pageJS = `(function(){
var bar=document.createElement('div');bar.className='tools-bar';
function all(open){document.querySelectorAll('details').forEach(function(d){d.open=open})}
function btn(t,f){var b=document.createElement('button');b.type='button';b.textContent=t;b.addEventListener('click',f);bar.appendChild(b)}
btn('Expand all',function(){all(true)});btn('Collapse all',function(){all(false)});
var q=document.createElement('input');q.type='search';q.placeholder='Search the events';bar.appendChild(q);
q.addEventListener('input',function(){var w=q.value.toLowerCase();document.querySelectorAll('.ev').forEach(function(e){
var hit=!w||e.textContent.toLowerCase().indexOf(w)>=0;e.classList.toggle('hidden-by-search',!hit);
if(w&&hit){e.querySelectorAll('details').forEach(function(d){if(d.textContent.toLowerCase().indexOf(w)>=0)d.open=true})}})});
var p=document.querySelector('.page');if(p)p.parentNode.insertBefore(bar,p);
})();`

// pageCSP is the policy: nothing but the inline style and script above.
var pageCSP = "default-src 'none'; style-src '" + cspHash(pageCSS) + "'; script-src '" + cspHash(pageJS) +
	"'; img-src data:; base-uri 'none'; form-action 'none'"

func cspHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(h[:])
}

// pageHead is the page's start, up to the column the runs go in.
func pageHead(title string) string {
	return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" +
		`<meta http-equiv="Content-Security-Policy" content="` + pageCSP + "\">\n" +
		`<meta name="viewport" content="width=device-width, initial-scale=1">` + "\n" +
		`<meta name="referrer" content="no-referrer">` + "\n" +
		"<title>" + html.EscapeString(line(title)) + "</title>\n" +
		"<style>" + pageCSS + "</style>\n</head>\n<body>\n<div class=\"page\">\n"
}

// pageEnd closes what pageHead opened, and runs the script.
func pageEnd() string {
	return "</div>\n<script>" + pageJS + "</script>\n</body>\n</html>\n"
}

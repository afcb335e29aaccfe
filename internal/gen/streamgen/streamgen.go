// Package streamgen writes large, deterministic, realistic streams in the
// format of `claude -p --output-format stream-json --verbose` (claude-code
// 2.1.328), for benchmarks and soak tests.
//
// Event shapes and key order are copied from the real captures in
// testdata/events (see INDEX.md there). A stream is one session: a
// system/init, then turns until the requested size is reached. Each turn
// starts with a new system/init (as with --input-format stream-json), makes
// several API calls (assistant events: thinking/text/tool_use blocks, one
// block per event, blocks of one call sharing message.id and usage), runs the
// tools (user tool_result events with per-tool tool_use_result objects:
// Bash, Read, Write, Edit, Grep, Agent), and ends with a result event.
// Mixed in: foreground subagents (Agent tool_use, system/task_started,
// subagent prompt, subagent assistant/user events with parent_tool_use_id and
// agent_id, task_progress, task_updated, task_notification, Agent
// tool_result), partial-message turns (system/status requesting and
// stream_event deltas), system/thinking_tokens, system/api_retry, Bash
// failures, permission denials, long foreground Bash tasks (local_bash
// task_started/task_notification) and automatic compaction.
//
// Deliberate departures from 2.1.328, all documented on Options:
//   - the last assistant event of each message carries the final
//     output_tokens (the real CLI writes the message_start placeholder, 1, on
//     every block); set Options.PlaceholderUsage for the real behaviour;
//   - "Grep" is added to init.tools (2.1.328 has no Grep tool; the generator
//     still emits Grep calls with the tool_use_result shape of earlier
//     releases);
//   - partial-message turns are mixed with normal turns within one session.
package streamgen

import (
	"bufio"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Options controls Generate.
type Options struct {
	// Size is the target size in bytes. The generator stops at the first
	// line boundary at or after Size, after finishing the current turn with
	// its result event, so the output is slightly larger than Size.
	Size int64
	// Seed selects the stream; the same (Options, Seed) gives the same bytes.
	Seed int64
	// PlaceholderUsage writes output_tokens:1 on every assistant event, as
	// claude-code 2.1.328 really does. By default the last assistant event of
	// each message carries the message's final output_tokens.
	PlaceholderUsage bool
	// ReplayUserMessages emits each turn's prompt as a user event with string
	// content and isReplay:true, like --replay-user-messages. Off by default
	// because `.message.content[0]` then fails in jq on those events.
	ReplayUserMessages bool
}

// Size limits of tool results (raw bytes, before JSON escaping).
const (
	minResult  = 100
	maxResult  = 1 << 20
	hugeResult = 20 << 20
	hugeEvery  = 200 << 20 // about one huge result per this many output bytes
	maxWrite   = 256 << 10
	mainModel  = "claude-opus-5-5"
	subModel   = "claude-sonnet-5-5" // used by Explore subagents
	cwd        = "/home/user/project"
)

// Generate writes a stream of about size bytes for seed to w.
func Generate(w io.Writer, size, seed int64) error {
	return GenerateOptions(w, Options{Size: size, Seed: seed})
}

// GenerateOptions writes a stream described by o to w.
func GenerateOptions(w io.Writer, o Options) error {
	if o.Size <= 0 {
		return errors.New("streamgen: size must be positive")
	}
	g := newGen(w, o)
	g.run()
	if g.err != nil {
		return g.err
	}
	return g.bw.Flush()
}

type modelStat struct {
	name                     string
	in, out, cr, cc, thought int64
	cost                     float64
}

type call struct {
	model                string
	id, req              string
	in, cc, cr, out, thk int64
	cost                 float64
	apiMs                int64
}

type agentCtx struct {
	toolUseID, agentID, taskID, runID string
	typ, desc, prompt, model          string
	ctx                               int64
	toolUses                          int
	startTs                           int64
	toolsUsed                         []string
	stats                             [7]int // read, search, bash, edit, linesAdded, linesRemoved, other
	last                              *call
	tokens                            int64
}

type toolCall struct {
	id, name string
	input    string // compact JSON object
	desc     string
	path     string
	size     int
	isErr    bool
	denied   bool
	longBash bool
	exitCode int
	writeEsc string // Write: escaped content; Edit: escaped original file
	oldStr   string
	newStr   string
	grepMode int // 0 content, 1 files_with_matches
	pattern  string
	agent    *agentCtx
}

type block struct {
	kind int // blkText, blkThinking, blkTool
	text string
	sig  string
	tool *toolCall
}

const (
	blkText = iota
	blkThinking
	blkTool
)

type turnState struct {
	startTs          int64
	apiMs            int64
	in, cc, cr, out  int64
	thk              int64
	last             *call
	numTools         int
	denials          []byte
	lastText         string
	partial          bool
	forced           []string
	forceRetry       bool
	forceThinking    bool
	forcedDenyOrFail bool
}

type gen struct {
	opt     Options
	r       *rand.Rand
	bw      *bufio.Writer
	err     error
	written int64
	target  int64

	b   []byte // current line
	blk []byte // current content block
	c1  []byte // scratch for large escaped strings
	c2  []byte
	idx []int32

	pool   []poolLine
	sess   string
	socket string
	ts     int64

	ctx       int64 // main-agent context tokens
	pending   int64 // tokens added to the main context since the last call
	turn      int
	resultIdx int
	nextHuge  int64

	models    []*modelStat // cumulative, in order of first use
	since     []*modelStat // since the last result
	totalCost float64

	spawned  int
	byType   []string
	byTypeN  []int
	lastMain [2]string // uuids of the two latest main-thread messages
}

func newGen(w io.Writer, o Options) *gen {
	r := rand.New(rand.NewPCG(uint64(o.Seed), 0x9e3779b97f4a7c15))
	g := &gen{
		opt:    o,
		r:      r,
		bw:     bufio.NewWriterSize(w, 4<<20),
		target: o.Size,
		b:      make([]byte, 0, 64<<10),
	}
	g.pool = buildPool(r, 8192)
	g.sess = g.uuid()
	g.socket = "/tmp/cc-socks/" + strconv.Itoa(1000+r.IntN(60000)) + ".sock"
	g.ts = time.Date(2026, 12, 2, 13, 20, 36, 0, time.UTC).UnixMilli() + int64(r.IntN(3_600_000))
	g.ctx = 9800 + int64(r.IntN(200))
	g.pending = 2400 + int64(r.IntN(100))
	g.nextHuge = int64(float64(hugeEvery) * (0.5 + r.Float64()))
	g.lastMain = [2]string{g.uuid(), g.uuid()}
	return g
}

// ---------------------------------------------------------------- low level

func (g *gen) begin()                { g.b = g.b[:0] }
func (g *gen) s(x string)            { g.b = append(g.b, x...) }
func (g *gen) q(x string)            { g.b = appendQuoted(g.b, x) }
func (g *gen) n(x int64)             { g.b = strconv.AppendInt(g.b, x, 10) }
func (g *gen) i(x int)               { g.b = strconv.AppendInt(g.b, int64(x), 10) }
func (g *gen) f(x float64)           { g.b = appendFloat(g.b, x) }
func (g *gen) raw(x []byte)          { g.b = append(g.b, x...) }
func (g *gen) rawq(x []byte)         { g.b = append(g.b, '"'); g.b = append(g.b, x...); g.b = append(g.b, '"') }
func (g *gen) boolv(x bool)          { g.b = strconv.AppendBool(g.b, x) }
func (g *gen) between(a, b int) int  { return a + g.r.IntN(b-a+1) }
func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) end() {
	g.b = append(g.b, '\n')
	g.written += int64(len(g.b))
	if g.err == nil {
		_, g.err = g.bw.Write(g.b)
	}
	if cap(g.b) > 8<<20 { // do not keep a 40 MB line buffer around
		g.b = make([]byte, 0, 64<<10)
	}
}

func (g *gen) done() bool { return g.written >= g.target || g.err != nil }

func (g *gen) remaining() int64 { return g.target - g.written }

const b62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const b36 = "0123456789abcdefghijklmnopqrstuvwxyz"

func (g *gen) randChars(prefix, alphabet string, n int) string {
	buf := make([]byte, len(prefix), len(prefix)+n)
	copy(buf, prefix)
	for i := 0; i < n; i++ {
		buf = append(buf, alphabet[g.r.IntN(len(alphabet))])
	}
	return string(buf)
}

func (g *gen) uuid() string {
	var u [16]byte
	a, b := g.r.Uint64(), g.r.Uint64()
	for i := 0; i < 8; i++ {
		u[i] = byte(a >> (8 * i))
		u[8+i] = byte(b >> (8 * i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	buf := make([]byte, 36)
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			buf[j] = '-'
			j++
		}
		buf[j] = hexDigits[c>>4]
		buf[j+1] = hexDigits[c&0xf]
		j += 2
	}
	return string(buf)
}

func (g *gen) msgID() string  { return g.randChars("msg_01", b62, 22) }
func (g *gen) toolID() string { return g.randChars("toolu_01", b62, 22) }
func (g *gen) reqID() string  { return g.randChars("req_011C", b62, 20) }
func (g *gen) runID() string {
	return g.randChars("0mx6", b36, 5) + "-" + g.randChars("", hexDigits, 8)
}

func (g *gen) signature() string {
	n := 180 + g.r.IntN(240)
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	s := g.randChars("Egi", b64, n-n%4)
	return s + "="
}

// tick advances the clock by a random number of milliseconds (at least 1, so
// timestamps are strictly increasing).
func (g *gen) tick(lo, hi int) { g.ts += int64(g.between(max(lo, 1), max(hi, 1))) }

func (g *gen) stamp() {
	g.tick(1, 40)
	g.s(`"timestamp":"`)
	g.b = time.UnixMilli(g.ts).UTC().AppendFormat(g.b, "2006-01-02T15:04:05.000Z")
	g.s(`"`)
}

// agentLabels writes the two fields claude-code adds to a subagent's
// assistant and user events; nothing for the main agent.
func (g *gen) agentLabels(a *agentCtx) {
	if a == nil {
		return
	}
	g.s(`,"subagent_type":`)
	g.q(a.typ)
	g.s(`,"task_description":`)
	g.q(a.desc)
}

// agentEnvelope writes the value of parent_tool_use_id (with agent_id inside
// a subagent), then session_id, uuid and timestamp: the tail every
// assistant and user event shares. Main-agent uuids are remembered for
// compaction's preserved segment.
func (g *gen) agentEnvelope(a *agentCtx) {
	u := g.uuid()
	if a != nil {
		g.q(a.toolUseID)
		g.s(`,"agent_id":`)
		g.q(a.agentID)
	} else {
		g.s(`null`)
		g.lastMain[0], g.lastMain[1] = g.lastMain[1], u
	}
	g.s(`,"session_id":`)
	g.q(g.sess)
	g.s(`,"uuid":`)
	g.q(u)
	g.s(`,`)
	g.stamp()
}

func (g *gen) sessUUID() { // ,"session_id":S,"uuid":U
	g.s(`"session_id":`)
	g.q(g.sess)
	g.s(`,"uuid":`)
	g.q(g.uuid())
}

func (g *gen) uuidSess() { // "uuid":U,"session_id":S
	g.s(`"uuid":`)
	g.q(g.uuid())
	g.s(`,"session_id":`)
	g.q(g.sess)
}

// logUniform returns an int in [lo, hi] with a log-uniform distribution.
func (g *gen) logUniform(lo, hi int) int {
	l, h := math.Log(float64(lo)), math.Log(float64(hi))
	return int(math.Exp(l + g.r.Float64()*(h-l)))
}

// resultSize draws the raw size of a tool result.
func (g *gen) resultSize(allowHuge bool) int {
	rem := g.remaining()
	if allowHuge && g.written >= g.nextHuge && rem > 3*hugeResult {
		g.nextHuge = g.written + int64(float64(hugeEvery)*(0.5+g.r.Float64()))
		return hugeResult + g.r.IntN(1<<20)
	}
	n := g.logUniform(minResult, maxResult)
	if lim := rem / 3; int64(n) > lim {
		n = int(max(lim, minResult))
	}
	return n
}

// pickLines chooses pool lines whose raw length (plus newlines) reaches size.
func (g *gen) pickLines(size int) []int32 {
	g.idx = g.idx[:0]
	total := 0
	for total < size {
		k := int32(g.r.IntN(len(g.pool)))
		g.idx = append(g.idx, k)
		total += len(g.pool[k].raw) + 1
	}
	return g.idx
}

func (g *gen) renderJoined(dst []byte, idx []int32) []byte {
	for j, k := range idx {
		if j > 0 {
			dst = append(dst, '\\', 'n')
		}
		dst = append(dst, g.pool[k].esc...)
	}
	return dst
}

func (g *gen) renderFile(dst []byte, idx []int32) []byte {
	for _, k := range idx {
		dst = append(dst, g.pool[k].esc...)
		dst = append(dst, '\\', 'n')
	}
	return dst
}

func (g *gen) renderNumbered(dst []byte, idx []int32, first int) []byte {
	for j, k := range idx {
		dst = strconv.AppendInt(dst, int64(first+j), 10)
		dst = append(dst, '\\', 't')
		dst = append(dst, g.pool[k].esc...)
		dst = append(dst, '\\', 'n')
	}
	dst = strconv.AppendInt(dst, int64(first+len(idx)), 10)
	return append(dst, '\\', 't')
}

func (g *gen) renderGrep(dst []byte, idx []int32) []byte {
	for j, k := range idx {
		if j > 0 {
			dst = append(dst, '\\', 'n')
		}
		dst = appendEscaped(dst, projectFiles[int(k)%len(projectFiles)])
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(1+int(k)%900), 10)
		dst = append(dst, ':')
		dst = append(dst, g.pool[k].esc...)
	}
	return dst
}

func (g *gen) prose(n int) string {
	var sb strings.Builder
	sb.Grow(n + 64)
	writeSentences(&sb, g.r, n)
	return strings.TrimSpace(sb.String())
}

// ---------------------------------------------------------------- session

func (g *gen) run() {
	for !g.done() {
		g.emitInit()
		g.runTurn()
	}
}

func (g *gen) emitInit() {
	g.begin()
	g.s(initHead)
	g.q(g.sess)
	g.s(initTools)
	g.s(`,"uuid":`)
	g.q(g.uuid())
	g.s(initMemory)
	g.s(`"messaging_socket_path":`)
	g.q(g.socket)
	g.s(initTail)
	g.end()
}

func (g *gen) runTurn() {
	t := &turnState{startTs: g.ts, partial: g.chance(0.15)}
	switch g.turn {
	case 0:
		t.partial, t.forceThinking = true, true
		t.forced = []string{"Bash", "Read"}
	case 1:
		t.forceRetry = true
		t.forced = []string{"Agent", "Write"}
	case 2:
		t.forced = []string{"Bash!fail", "Bash!deny", "Edit", "Grep", "Bash!long"}
	}
	g.tick(200, 5000)
	if g.opt.ReplayUserMessages {
		g.begin()
		g.s(`{"type":"user","message":{"role":"user","content":`)
		g.q(pick(g.r, prompts))
		g.s(`},"session_id":`)
		g.q(g.sess)
		g.s(`,"parent_tool_use_id":null,"uuid":`)
		g.q(g.uuid())
		g.s(`,`)
		g.stamp()
		g.s(`,"isReplay":true}`)
		g.end()
	}
	calls := 1 + int(g.r.ExpFloat64()*3)
	if calls > 12 {
		calls = 12
	}
	if len(t.forced) > calls {
		calls = len(t.forced)
	}
	for c := 0; c < calls && !g.done(); c++ {
		if g.ctx > 700_000 {
			g.compact()
		}
		g.mainCall(t, true)
	}
	g.mainCall(t, false)
	g.emitResult(t)
	g.turn++
}

// ---------------------------------------------------------------- API calls

func (g *gen) newCall(model string, ctx *int64, pending int64) *call {
	c := &call{model: model, id: g.msgID(), req: g.reqID(), in: 3}
	c.cr = *ctx
	c.cc = min(pending+int64(g.between(40, 400)), 200_000)
	*ctx += c.cc
	c.apiMs = int64(g.between(300, 9000))
	return c
}

func (g *gen) finishCall(c *call, blocks []block) {
	var n int64
	for _, b := range blocks {
		switch b.kind {
		case blkText:
			n += int64(len(b.text)) / 4
		case blkThinking:
			c.thk += int64(len(b.text)) / 4
		case blkTool:
			n += int64(len(b.tool.input)) / 4
		}
	}
	c.out = n + c.thk + int64(g.between(5, 60))
	rate := [4]float64{5, 25, 0.5, 10} // $/Mtok: input, output, cache read, cache write (1h)
	if c.model == subModel {
		rate = [4]float64{3, 15, 0.3, 6}
	}
	c.cost = (float64(c.in)*rate[0] + float64(c.out)*rate[1] + float64(c.cr)*rate[2] + float64(c.cc)*rate[3]) / 1e6
	g.totalCost += c.cost
	g.models = addModel(g.models, c)
	g.since = addModel(g.since, c)
}

func addModel(list []*modelStat, c *call) []*modelStat {
	var m *modelStat
	for _, x := range list {
		if x.name == c.model {
			m = x
		}
	}
	if m == nil {
		m = &modelStat{name: c.model}
		list = append(list, m)
	}
	m.in += c.in
	m.out += c.out
	m.cr += c.cr
	m.cc += c.cc
	m.thought += c.thk
	m.cost += c.cost
	return list
}

func (g *gen) apiRetries() {
	n := g.between(1, 3)
	delay := 500 + g.r.IntN(200)
	for a := 1; a <= n; a++ {
		g.begin()
		g.s(`{"type":"system","subtype":"api_retry","attempt":`)
		g.i(a)
		g.s(`,"max_retries":10,"retry_delay_ms":`)
		g.i(delay)
		g.s(`,"error_status":529,"error":"overloaded",`)
		g.sessUUID()
		g.s(`}`)
		g.end()
		g.ts += int64(delay)
		delay = delay*2 - g.r.IntN(delay/4+1)
	}
}

func (g *gen) mainCall(t *turnState, withTools bool) {
	if t.forceRetry || g.chance(0.02) {
		t.forceRetry = false
		g.apiRetries()
	}
	c := g.newCall(mainModel, &g.ctx, g.pending)
	g.pending = 0
	g.ts += c.apiMs / 3
	var blocks []block
	if t.forceThinking || g.chance(0.35) {
		t.forceThinking = false
		blocks = append(blocks, block{kind: blkThinking, text: g.prose(g.logUniform(60, 4000)), sig: g.signature()})
	}
	if !withTools || g.chance(0.5) {
		n := g.logUniform(30, 800)
		if !withTools {
			n = g.logUniform(80, 3000)
		}
		blocks = append(blocks, block{kind: blkText, text: g.prose(n)})
	}
	if withTools {
		ntools := 1
		if g.chance(0.3) {
			ntools = g.between(2, 4)
		}
		for k := 0; k < ntools; k++ {
			name := ""
			if len(t.forced) > 0 {
				name, t.forced = t.forced[0], t.forced[1:]
			} else {
				name = g.pickTool()
			}
			tc := g.planTool(name, false)
			blocks = append(blocks, block{kind: blkTool, tool: tc})
			if tc.name == "Agent" {
				break // an Agent call is the last block of its message
			}
		}
	}
	g.finishCall(c, blocks)
	if t.partial {
		g.emitPartial(c, blocks)
	} else {
		g.emitBlocks(c, blocks, nil)
	}
	t.apiMs += c.apiMs
	t.in += c.in
	t.cc += c.cc
	t.cr += c.cr
	t.out += c.out
	t.thk += c.thk
	t.last = c
	for _, b := range blocks {
		if b.kind == blkText {
			t.lastText = b.text
		}
	}
	// Run the tools; results arrive in completion order.
	var tools []*toolCall
	for _, b := range blocks {
		if b.kind == blkTool {
			tools = append(tools, b.tool)
		}
	}
	g.r.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
	for _, tc := range tools {
		t.numTools++
		g.runTool(tc, nil, t)
	}
}

func (g *gen) pickTool() string {
	k := g.r.IntN(100)
	switch {
	case k < 34:
		if g.chance(0.06) {
			return "Bash!fail"
		}
		if g.chance(0.015) {
			return "Bash!deny"
		}
		if g.chance(0.02) {
			return "Bash!long"
		}
		return "Bash"
	case k < 62:
		return "Read"
	case k < 72:
		return "Grep"
	case k < 83:
		return "Edit"
	case k < 94:
		return "Write"
	default:
		return "Agent"
	}
}

// ---------------------------------------------------------------- emission

// emitBlocks writes one assistant event per block. a is the subagent (nil for
// the main thread).
func (g *gen) emitBlocks(c *call, blocks []block, a *agentCtx) {
	for i, b := range blocks {
		if b.kind == blkThinking {
			g.thinkingTokensBurst(int(c.thk))
		}
		g.tick(20, 1500)
		g.assistantEvent(c, &blocks[i], i == len(blocks)-1, a)
	}
}

func (g *gen) thinkingTokensBurst(total int) {
	n := g.between(2, 5)
	cum := 0
	for k := 0; k < n; k++ {
		d := total / n
		if k == n-1 {
			d = total - cum
		}
		cum += d
		g.thinkingTokens(cum, d)
	}
}

func (g *gen) thinkingTokens(cum, d int) {
	g.begin()
	g.s(`{"type":"system","subtype":"thinking_tokens","estimated_tokens":`)
	g.i(cum)
	g.s(`,"estimated_tokens_delta":`)
	g.i(d)
	g.s(`,`)
	g.sessUUID()
	g.s(`}`)
	g.end()
}

func (g *gen) renderBlock(b *block) {
	g.blk = g.blk[:0]
	switch b.kind {
	case blkText:
		g.blk = append(g.blk, `{"type":"text","text":`...)
		g.blk = appendQuoted(g.blk, b.text)
		g.blk = append(g.blk, '}')
	case blkThinking:
		g.blk = append(g.blk, `{"type":"thinking","thinking":`...)
		g.blk = appendQuoted(g.blk, b.text)
		g.blk = append(g.blk, `,"signature":`...)
		g.blk = appendQuoted(g.blk, b.sig)
		g.blk = append(g.blk, '}')
	case blkTool:
		g.blk = append(g.blk, `{"type":"tool_use","id":`...)
		g.blk = appendQuoted(g.blk, b.tool.id)
		g.blk = append(g.blk, `,"name":`...)
		g.blk = appendQuoted(g.blk, b.tool.name)
		g.blk = append(g.blk, `,"input":`...)
		g.blk = append(g.blk, b.tool.input...)
		g.blk = append(g.blk, '}')
	}
}

func (g *gen) usageShort(c *call, out int64) {
	g.s(`{"input_tokens":`)
	g.n(c.in)
	g.s(`,"cache_creation_input_tokens":`)
	g.n(c.cc)
	g.s(`,"cache_read_input_tokens":`)
	g.n(c.cr)
	g.s(`,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":`)
	g.n(c.cc)
	g.s(`},"output_tokens":`)
	g.n(out)
	g.s(`,"service_tier":"standard","inference_geo":"not_available"}`)
}

func (g *gen) assistantEvent(c *call, b *block, last bool, a *agentCtx) {
	g.renderBlock(b)
	out := int64(1)
	if last && !g.opt.PlaceholderUsage {
		out = c.out
	}
	g.begin()
	g.s(`{"type":"assistant","message":{"model":`)
	g.q(c.model)
	g.s(`,"id":`)
	g.q(c.id)
	g.s(`,"type":"message","role":"assistant","content":[`)
	g.raw(g.blk)
	g.s(`],"stop_reason":null,"stop_sequence":null,"stop_details":null,"usage":`)
	g.usageShort(c, out)
	g.s(`,"context_management":null},"parent_tool_use_id":`)
	g.agentEnvelope(a)
	g.s(`,"request_id":`)
	g.q(c.req)
	if b.kind == blkThinking {
		g.s(`,"thinking_duration_ms":`)
		g.i(g.between(2, 9000))
		g.s(`,"thinking_display":"updates"`)
	}
	g.agentLabels(a)
	g.s(`}`)
	g.end()
}

// streamTail closes a stream_event line.
func (g *gen) streamTail(c *call, ttft int, thinkingDisplay bool) {
	g.s(`,"session_id":`)
	g.q(g.sess)
	g.s(`,"parent_tool_use_id":null,"uuid":`)
	g.q(g.uuid())
	if ttft > 0 {
		g.s(`,"ttft_ms":`)
		g.i(ttft)
	}
	if thinkingDisplay {
		g.s(`,"thinking_display":"updates"`)
	}
	g.s(`,"api_message_id":`)
	g.q(c.id)
	g.s(`}`)
	g.end()
}

func (g *gen) emitStatusRequesting() {
	g.begin()
	g.s(`{"type":"system","subtype":"status","status":"requesting",`)
	g.sessUUID()
	g.s(`}`)
	g.end()
}

// chunks splits s into pieces of lo..hi bytes on rune boundaries.
func (g *gen) chunks(s string, lo, hi int) []string {
	var out []string
	for len(s) > 0 {
		n := runeSafeCut(s, g.between(lo, hi))
		if n == 0 {
			n = min(len(s), 4) // a rune is at most 4 bytes
			for n < len(s) && n > 0 && !isRuneStart(s[n]) {
				n++
			}
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// spacedJSON re-renders compact JSON with ", " and ": " separators, the way
// the Messages API streams tool input (input_json_delta.partial_json).
func spacedJSON(compact string) string {
	var sb strings.Builder
	sb.Grow(len(compact) + len(compact)/8)
	inStr, esc := false, false
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		sb.WriteByte(c)
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == ',' || c == ':'):
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}

func (g *gen) emitPartial(c *call, blocks []block) {
	g.emitStatusRequesting()
	g.begin()
	g.s(`{"type":"stream_event","event":{"type":"message_start","message":{"model":`)
	g.q(c.model)
	g.s(`,"id":`)
	g.q(c.id)
	g.s(`,"type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"stop_details":null,"usage":`)
	g.usageShort(c, 1)
	g.s(`}}`)
	g.streamTail(c, g.between(5, 3000), true)
	for i := range blocks {
		b := &blocks[i]
		g.begin()
		g.s(`{"type":"stream_event","event":{"type":"content_block_start","index":`)
		g.i(i)
		g.s(`,"content_block":`)
		switch b.kind {
		case blkText:
			g.s(`{"type":"text","text":""}}`)
		case blkThinking:
			g.s(`{"type":"thinking","thinking":"","signature":""}}`)
		case blkTool:
			g.s(`{"type":"tool_use","id":`)
			g.q(b.tool.id)
			g.s(`,"name":`)
			g.q(b.tool.name)
			g.s(`,"input":{}}}`)
		}
		g.streamTail(c, 0, b.kind == blkThinking)
		switch b.kind {
		case blkText:
			for _, ch := range g.chunks(b.text, 8, 40) {
				g.begin()
				g.s(`{"type":"stream_event","event":{"type":"content_block_delta","index":`)
				g.i(i)
				g.s(`,"delta":{"type":"text_delta","text":`)
				g.q(ch)
				g.s(`}}`)
				g.streamTail(c, 0, false)
			}
		case blkThinking:
			cum := 0
			for _, ch := range g.chunks(b.text, 8, 40) {
				d := max(1, len(ch)/4)
				cum += d
				g.thinkingTokens(cum, d)
				g.begin()
				g.s(`{"type":"stream_event","event":{"type":"content_block_delta","index":`)
				g.i(i)
				g.s(`,"delta":{"type":"thinking_delta","thinking":`)
				g.q(ch)
				g.s(`,"estimated_tokens":`)
				g.i(d)
				g.s(`}}`)
				g.streamTail(c, 0, true)
			}
			g.thinkingTokens(cum+32, 32)
			g.begin()
			g.s(`{"type":"stream_event","event":{"type":"content_block_delta","index":`)
			g.i(i)
			g.s(`,"delta":{"type":"signature_delta","signature":`)
			g.q(b.sig)
			g.s(`}}`)
			g.streamTail(c, 0, false)
		case blkTool:
			spaced := spacedJSON(b.tool.input)
			hi := max(16, len(spaced)/50)
			parts := append([]string{""}, g.chunks(spaced, 8, hi)...)
			for _, ch := range parts {
				g.begin()
				g.s(`{"type":"stream_event","event":{"type":"content_block_delta","index":`)
				g.i(i)
				g.s(`,"delta":{"type":"input_json_delta","partial_json":`)
				g.q(ch)
				g.s(`}}`)
				g.streamTail(c, 0, false)
			}
		}
		g.tick(20, 1500)
		g.assistantEvent(c, b, i == len(blocks)-1, nil)
		g.begin()
		g.s(`{"type":"stream_event","event":{"type":"content_block_stop","index":`)
		g.i(i)
		g.s(`}`)
		g.streamTail(c, 0, false)
	}
	stop := "end_turn"
	if len(blocks) > 0 && blocks[len(blocks)-1].kind == blkTool {
		stop = "tool_use"
	}
	g.begin()
	g.s(`{"type":"stream_event","event":{"type":"message_delta","delta":{"stop_reason":`)
	g.q(stop)
	g.s(`,"stop_sequence":null},"usage":{"input_tokens":`)
	g.n(c.in)
	g.s(`,"cache_creation_input_tokens":`)
	g.n(c.cc)
	g.s(`,"cache_read_input_tokens":`)
	g.n(c.cr)
	g.s(`,"output_tokens":`)
	g.n(c.out)
	g.s(`,"output_tokens_details":{"thinking_tokens":`)
	g.n(c.thk)
	g.s(`},"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"iterations":[`)
	g.iteration(c)
	g.s(`]}}`)
	g.streamTail(c, 0, false)
	g.begin()
	g.s(`{"type":"stream_event","event":{"type":"message_stop"}`)
	g.streamTail(c, 0, false)
}

func (g *gen) iteration(c *call) {
	g.s(`{"type":"message","input_tokens":`)
	g.n(c.in)
	g.s(`,"output_tokens":`)
	g.n(c.out)
	g.s(`,"cache_read_input_tokens":`)
	g.n(c.cr)
	g.s(`,"cache_creation_input_tokens":`)
	g.n(c.cc)
	g.s(`}`)
}

func (g *gen) compact() {
	pre := g.ctx
	post := int64(g.between(2500, 16000))
	g.begin()
	g.s(`{"type":"system","subtype":"status","status":"compacting","compact_output_chars":0,`)
	g.sessUUID()
	g.s(`}`)
	g.end()
	dur := g.between(8000, 60000)
	g.ts += int64(dur)
	g.begin()
	g.s(`{"type":"system","subtype":"status","status":null,"compact_result":"success",`)
	g.sessUUID()
	g.s(`}`)
	g.end()
	head, tail, anchor := g.lastMain[0], g.lastMain[1], g.uuid()
	g.begin()
	g.s(`{"type":"system","subtype":"compact_boundary","uuid":`)
	g.q(g.uuid())
	g.s(`,"compact_metadata":{"trigger":"auto","pre_tokens":`)
	g.n(pre)
	g.s(`,"post_tokens":`)
	g.n(post)
	g.s(`,"cumulative_dropped_tokens":`)
	g.n(pre - post)
	g.s(`,"duration_ms":`)
	g.i(dur)
	g.s(`,"preserved_segment":{"head_uuid":`)
	g.q(head)
	g.s(`,"anchor_uuid":`)
	g.q(anchor)
	g.s(`,"tail_uuid":`)
	g.q(tail)
	g.s(`},"preserved_messages":{"anchor_uuid":`)
	g.q(anchor)
	g.s(`,"uuids":[`)
	g.q(head)
	g.s(`,`)
	g.q(tail)
	g.s(`],"all_uuids":[`)
	g.q(head)
	g.s(`,`)
	g.q(tail)
	g.s(`]}},"logical_parent_uuid":`)
	g.q(tail)
	g.s(`,"session_id":`)
	g.q(g.sess)
	g.s(`}`)
	g.end()
	g.begin()
	g.s(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":`)
	g.q("This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n<system-reminder>\n<tools-used-before-summary>Bash, Read, Edit</tools-used-before-summary>\n</system-reminder>\nSummary:\n" +
		g.prose(g.logUniform(400, 6000)) +
		"\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: /home/user/.claude/projects/-home-user-project/" + g.sess + ".jsonl\nContinue the conversation from where it left off without asking the user any further questions. Resume directly — do not acknowledge the summary, do not recap what was happening, do not preface with \"I'll continue\" or similar. Pick up the last task as if the break never happened.")
	g.s(`}]},"parent_tool_use_id":null,"session_id":`)
	g.q(g.sess)
	g.s(`,"uuid":`)
	g.q(anchor)
	g.s(`,`)
	g.stamp()
	g.s(`,"isSynthetic":true}`)
	g.end()
	g.ctx = post
	g.pending = 0
}

// ---------------------------------------------------------------- result

func (g *gen) modelUsage(list []*modelStat) {
	g.s(`{`)
	for k, m := range list {
		if k > 0 {
			g.s(`,`)
		}
		g.q(m.name)
		g.s(`:{"inputTokens":`)
		g.n(m.in)
		g.s(`,"outputTokens":`)
		g.n(m.out)
		g.s(`,"cacheReadInputTokens":`)
		g.n(m.cr)
		g.s(`,"cacheCreationInputTokens":`)
		g.n(m.cc)
		g.s(`,"webSearchRequests":0,"costUSD":`)
		g.f(m.cost)
		g.s(`,"contextWindow":1000000,"maxOutputTokens":128000,"thinkingTokens":`)
		g.n(m.thought)
		g.s(`,"cacheCreationEphemeral5mInputTokens":0,"cacheCreationEphemeral1hInputTokens":`)
		g.n(m.cc)
		g.s(`,"canonicalModel":`)
		g.q(m.name)
		g.s(`,"provider":"firstParty","costBasis":"list"}`)
	}
	g.s(`}`)
}

func (g *gen) emitResult(t *turnState) {
	g.tick(5, 200)
	g.begin()
	g.s(`{"duration_api_ms":`)
	g.n(t.apiMs)
	g.s(`,"stop_reason":"end_turn","session_id":`)
	g.q(g.sess)
	g.s(`,"total_cost_usd":`)
	g.f(g.totalCost)
	g.s(`,"usage":{"input_tokens":`)
	g.n(t.in)
	g.s(`,"cache_creation_input_tokens":`)
	g.n(t.cc)
	g.s(`,"cache_read_input_tokens":`)
	g.n(t.cr)
	g.s(`,"output_tokens":`)
	g.n(t.out)
	g.s(`,"output_tokens_details":{"thinking_tokens":`)
	g.n(t.thk)
	g.s(`},"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard","cache_creation":{"ephemeral_1h_input_tokens":`)
	g.n(t.cc)
	g.s(`,"ephemeral_5m_input_tokens":0},"inference_geo":"not_available","iterations":[`)
	g.iteration(t.last)
	g.s(`],"speed":"standard","fallback_credit":null},"modelUsage":`)
	g.modelUsage(g.models)
	g.s(`,"permission_denials":[`)
	g.raw(t.denials)
	g.s(`],"terminal_reason":"completed","fast_mode_state":"off","fast_mode_disabled_reason":"sdk_opt_in_required","subagent_stats":{"spawned":`)
	g.i(g.spawned)
	g.s(`,"requested":{"background":0,"foreground":`)
	g.i(g.spawned)
	g.s(`,"unset":0},"started_in_background":0,"max_depth":`)
	g.i(min(g.spawned, 1))
	g.s(`,"spawned_by_subagents":0,"completed":`)
	g.i(g.spawned)
	g.s(`,"failed":0,"killed":{"parent":0,"user":0,"system":0},"refused":{"depth_limit":0,"concurrency_limit":0,"budget":0},"by_type":{`)
	for k, name := range g.byType {
		if k > 0 {
			g.s(`,`)
		}
		g.q(name)
		g.s(`:`)
		g.i(g.byTypeN[k])
	}
	g.s(`}},"safety_stops":0,"is_error":false,"num_turns":`)
	g.i(1 + t.numTools)
	g.s(`,"subtype":"success","api_error_status":null,"result":`)
	g.q(t.lastText)
	ttft := g.between(150, 4000)
	g.s(`,"ttft_ms":`)
	g.i(ttft)
	g.s(`,"type":"result","duration_ms":`)
	g.n(g.ts - t.startTs + int64(g.between(20, 300)))
	g.s(`,"uuid":`)
	g.q(g.uuid())
	g.s(`,"ttft_stream_ms":`)
	g.i(ttft - 2)
	g.s(`,"time_to_request_ms":`)
	g.i(ttft - g.between(15, 100))
	g.s(`,"first_content_frame_ms":`)
	g.i(ttft - 1)
	g.s(`,"queued_turn_count":0,"result_index":`)
	g.i(g.resultIdx)
	g.s(`,"model_usage_since_last_result":`)
	g.modelUsage(g.since)
	g.s(`}`)
	g.end()
	g.resultIdx++
	g.since = g.since[:0:0]
}

// ---------------------------------------------------------------- init text

// Copied from testdata/events/02-write-read.jsonl (claude-code 2.1.328), with
// "Grep" added to tools.
const initHead = `{"type":"system","subtype":"init","cwd":"/home/user/project","session_id":`

const initTools = `,"tools":["Task","Bash","CronCreate","CronDelete","CronList","Edit","EnterWorktree","ExitWorktree","Grep","ListAgents","Monitor","NotebookEdit","Read","ReportFindings","ScheduleWakeup","SendMessage","Skill","TaskStop","ToolSearch","WebFetch","WebSearch","Workflow","Write"],"mcp_servers":[],"model":"claude-opus-5-5","permissionMode":"acceptEdits","slash_commands":["deep-research","dataviz","update-config","verify","debug","code-review","simplify","batch","fewer-permission-prompts","doctor","loop","claude-api","workflow-authoring","run","run-skill-generator","plugin-authoring","agents","auto-mode-setup","autocompact","clear","color","compact","config","output-style","context","effort","fast","focus","heapdump","init","mcp","model","__remote-workflow","workflow-launch-exec","reload-plugins","reload-skills","rename","security-review","usage","insights","recap","goal","list-agents","team-onboarding"],"terminal_slash_commands":["doctor","color","focus","reload-plugins"],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.328","output_style":"default","agents":["claude","Explore","general-purpose","Plan","statusline-setup"],"skills":["deep-research","dataviz","update-config","verify","debug","code-review","simplify","batch","fewer-permission-prompts","doctor","loop","claude-api","workflow-authoring","run","run-skill-generator","plugin-authoring"],"plugins":[{"name":"cc-plugin-agents-md","path":"builtin","source":"cc-plugin-agents-md@builtin"},{"name":"cc-plugin-privacy","path":"builtin","source":"cc-plugin-privacy@builtin"},{"name":"cc-plugin-plugin-authoring","path":"builtin","source":"cc-plugin-plugin-authoring@builtin"}],"capabilities":["interrupt_receipt_v1","interrupt_cancel_queued_v1","interrupt_send_now_v1","interrupt_requeue_taken_v1","msg_lifecycle_v1","request_marker_lists_v1","ask_user_question_unanswered_v1","lifecycle_wakeup_source_v1","sdk_mcp_tools_list_changed","sdk_mcp_manifests","mcp_read_resource_v1","mcp_tool_ui_meta_v1","ui_surface_v1","mcp_call_result_not_for_model_v1","mcp_call_check_permissions_v1","voice_call_talk_line_v1","withdrawn_files_note_v2","ui_pane_widget_v1","reload_plugins_refuse_if_busy_v1","silent_resend_files_v1"],"analytics_disabled":true,"product_feedback_disabled":true`

const initMemory = `,"memory_paths":{"auto":"/home/user/.claude/projects/-home-user-project/memory/"},"original_cwd":"/home/user/project","additional_directories":[],`

const initTail = `,"fast_mode_state":"off","fast_mode_disabled_reason":"sdk_opt_in_required","per_turn_effort_active":true,"ultrathink_available":false,"ultrathink_typed_raises":false,"view_mode":"default"}`

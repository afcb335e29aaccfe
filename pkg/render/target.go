package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// ToolTarget returns what a tool call was called on, for one-line
// summaries: the command of Bash, the file of Read/Write/Edit/NotebookEdit,
// "subagent_type: description" of Agent/Task, the skill of Skill, the URL of
// WebFetch, the query of WebSearch/ToolSearch, the pattern (and path) of
// Grep/Glob, and the compact JSON input of MCP tools and of anything else
// (or when the expected field is missing). The result is the raw string
// from the stream: callers that print it sanitize it.
func ToolTarget(name string, input json.RawMessage) string {
	in := stream.ReadToolInput(input)
	var s string
	switch name {
	case "Bash", "PowerShell", "run_shell_command": // (run_shell_command and the other snake_case names: Gemini CLI's tools)
		s = in.Command()
	case "read_file", "write_file", "replace":
		s = in.FilePath()
	case "glob", "grep_search":
		s = in.Pattern()
	case "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead":
		s = in.FilePath()
		if s == "" {
			s = in.NotebookPath()
		}
	case "Agent", "Task":
		typ := in.SubagentType()
		if typ == "" {
			typ = "general-purpose"
		}
		if desc := in.Description(); desc != "" {
			s = typ + ": " + desc
		}
	case "Skill":
		s = in.Skill()
	case "WebFetch":
		s = in.URL()
	case "WebSearch", "ToolSearch":
		s = in.Query()
	case "Grep", "Glob":
		s = in.Pattern()
		if p := in.Path(); s != "" && p != "" {
			s += " in " + p
		}
	case "Workflow":
		if s = in.Name(); s == "" {
			if s = in.Description(); s == "" {
				s, _, _ = strings.Cut(strings.TrimSpace(in.Script()), "\n")
			}
		}
	case "LS":
		s = in.Path()
	}
	if s != "" {
		return s
	}
	return compactJSON(input)
}

// compactJSON returns raw JSON without insignificant space (key order kept).
func compactJSON(raw json.RawMessage) string {
	var own []byte // (a buffer of its own: the string is the caller's)
	return compactJSONIn(&own, raw)
}

// maxKeptScratch is the largest buffer compactJSONIn keeps for the next
// value: a long line's is let go.
const maxKeptScratch = 1 << 20

// compactJSONIn is compactJSON into *scratch, reused from call to call
// (the CSV's cells: a buffer for each row's input was most of what a
// tools CSV allocated); the string aliases *scratch and holds until the
// next call with it. A buffer grown past maxKeptScratch is not kept.
func compactJSONIn(scratch *[]byte, raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	// The same bytes as Compact, several times faster, in a buffer of
	// their size made a string without a copy: a Write's input is a
	// whole file, which an append that grew and a string conversion held
	// three times at once.
	buf := *scratch
	if cap(buf) < len(raw) {
		buf = make([]byte, 0, len(raw))
	}
	var out []byte
	ok := jsonx.IsCompact(raw) // (its own compaction, valid or not: no check needed)
	if ok {
		out = append(buf[:0], raw...)
	} else {
		out, ok = jsonx.AppendCompact(buf[:0], raw)
	}
	if !ok {
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return string(raw)
		}
		return b.String()
	}
	if cap(out) <= maxKeptScratch {
		*scratch = out
	} else {
		*scratch = nil
	}
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// fmtBytes formats a size: 17 B, 1.4 KB, 2.0 MB (powers of 1024).
func fmtBytes(n int) string {
	switch {
	case n < 1024:
		return strconv.Itoa(n) + " B"
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1024*1024*1024))
}

// fmtDuration formats a duration for people: 113ms, 2.1s, 3m05s, 2h03m.
func fmtDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + fmtDuration(-d)
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

func fmtMs(ms int64) string { return fmtDuration(time.Duration(ms) * time.Millisecond) }

// Millis formats a duration in milliseconds as every format shows one:
// "350ms", "2.1s", "3m07s", "1h02m".
func Millis(ms int64) string { return fmtMs(ms) }

// Plural formats a count with its noun: "1 line", "3 lines".
func Plural(n int64, noun string) string { return plural(n, noun) }

// plural formats a count with its noun: "1 line", "3 lines".
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

// countLines counts the lines of a text ("a\nb" and "a\nb\n" have 2).
func countLines(s string) int64 {
	if s == "" {
		return 0
	}
	n := int64(strings.Count(s, "\n"))
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// resultText returns a tool result's text for display: its text, and a
// placeholder for each non-text block (images, tool references).
// shownText is the result's text a view shows: with o.SavedOutputs, the
// output saved in full (its first max bytes), else resultText.
func (o Options) shownText(r stream.ToolResult, max int64) string {
	if o.SavedOutputs && r.Saved != "" {
		if f, err := os.Open(r.Saved); err == nil {
			defer f.Close()
			if b, err := io.ReadAll(io.LimitReader(f, max)); err == nil {
				if o.SavedValue != nil {
					return o.SavedValue(string(b))
				}
				return string(b)
			}
		}
	}
	return resultText(r)
}

func resultText(r stream.ToolResult) string { return r.Shown() }

// firstLines returns up to n lines of s after leading blank lines, and the
// number of lines left out.
func firstLines(s string, n int) ([]string, int) {
	s = strings.TrimLeft(s, "\n")
	s = strings.TrimRight(s, "\n ")
	if s == "" {
		return nil, 0
	}
	var out []string
	for len(out) < n {
		l, rest, ok := strings.Cut(s, "\n")
		out = append(out, strings.TrimRight(l, "\r"))
		if !ok {
			return out, 0
		}
		s = rest
	}
	return out, int(countLines(s))
}

// agentType returns the subagent type of the agent that made a call, or "".
func agentType(c *stream.ToolCall) string {
	if c.Agent != nil {
		return c.Agent.Type
	}
	return ""
}

// isAgentTool reports the tools that start a subagent.
func isAgentTool(name string) bool { return name == "Agent" || name == "Task" || name == "Workflow" }

func i64(n int64) string { return strconv.FormatInt(n, 10) }

// RetryText says an API retry in a line, as every view and the errors
// rows say it: "retry 3/10: overloaded (529), waiting 2.1s", a
// subagent's "retry 1/10: subagent overloaded (529), waiting 534ms".
func RetryText(r stream.Retry) string {
	s := "retry " + strconv.FormatInt(r.Attempt, 10)
	if r.MaxRetries > 0 {
		s += "/" + strconv.FormatInt(r.MaxRetries, 10)
	}
	errName := r.Error
	if errName == "" {
		errName = "error"
	}
	if r.Subagent {
		errName = "subagent " + errName
	}
	s += ": " + errName
	if r.Status != 0 {
		s += " (" + strconv.FormatInt(r.Status, 10) + ")"
	}
	return s + ", waiting " + fmtMs(r.DelayMs)
}

// Bytes formats a size as every format shows one: "512 B", "1.0 MB".
func Bytes(n int) string { return fmtBytes(n) }

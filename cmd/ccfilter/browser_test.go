//go:build browser

package main

// The HTML report in a real browser: headless Chromium (Debian's chromium
// package; make test-browser installs it). Built only with -tags browser:
// make test stays fast and needs no browser.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// browse opens page in headless Chromium and returns the DOM after its
// script ran, and the console messages it logged (a blocked request is
// one: the page's policy reports it there). With shot, it also saves a
// screenshot there.
func browse(t *testing.T, page, shot string) (dom string, console []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0", "--hide-scrollbars",
		// Any name but the test's own server resolves nowhere.
		"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"}
	if shot != "" {
		args = append(args, "--screenshot="+shot, "--window-size=1200,1500")
	} else {
		args = append(args, "--dump-dom")
	}
	var stdout, stderr bytes.Buffer
	for attempt := 1; ; attempt++ {
		stdout.Reset()
		stderr.Reset()
		cmd := exec.CommandContext(ctx, chromium(t), append(args, "file://"+page)...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && errors.As(err, &exit) && !exit.Exited() && ctx.Err() == nil && attempt < 3 {
			// The browser itself crashed (a signal), as it now and then
			// does on a loaded machine: a crash is no verdict on the
			// page, so it is opened again.
			t.Logf("chromium crashed (%v), attempt %d", err, attempt)
			continue
		}
		require.NoError(t, err, "chromium on %s: %s", page, tail(stderr.String()))
		break
	}
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), ":CONSOLE") {
			console = append(console, sc.Text())
		}
	}
	return stdout.String(), console
}

// htmlPage writes ccfilter's HTML report of in to a file and returns it.
func htmlPage(t *testing.T, in string, extra ...string) string {
	t.Helper()
	res := runIn(t, append([]string{"all", "-F", "html", in}, extra...), "")
	require.Contains(t, []int{0, 1, 4}, res.Code, res.Stderr)
	page := filepath.Join(t.TempDir(), filepath.Base(in)+".html")
	require.NoError(t, os.WriteFile(page, []byte(res.Stdout), 0o644))
	return page
}

var toolUseID = regexp.MustCompile(`"type":"tool_use","id":"(toolu_[A-Za-z0-9_]+)"`)

// TestBrowserEveryCapture opens the report of every capture and of the
// transcripts in a browser: no console message (no error, no blocked
// request), the page's own script ran (its buttons are there), every tool
// call is on the page, and so is the final answer.
func TestBrowserEveryCapture(t *testing.T) {
	runs, _ := filepath.Glob("../../testdata/events/*.jsonl")
	for _, name := range []string{"05-subagents-async", "43-nested-subagent", "60-long-session", "37-workflow"} {
		ts, _ := filepath.Glob("../../testdata/transcripts/" + name + "/home/.claude/projects/*/*.jsonl")
		runs = append(runs, ts...)
	}
	require.Greater(t, len(runs), 40)
	for _, in := range runs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			abs, _ := filepath.Abs(in)
			dom, console := browse(t, htmlPage(t, abs), "")
			assert.Empty(t, console, "console messages")
			assert.Contains(t, dom, `class="tools-bar"`, "the page's script ran")
			raw, err := os.ReadFile(in)
			require.NoError(t, err)
			for _, m := range toolUseID.FindAllSubmatch(raw, -1) {
				assert.Contains(t, dom, `id="tu-`+string(m[1])+`"`, "tool call %s", m[1])
			}
			if answer := lastAnswerWords(raw); answer != "" {
				assert.Contains(t, dom, answer, "the final answer")
			}
		})
	}
}

// lastAnswerWords is a run of plain words of the last result's answer
// (what a markdown rendering keeps as it is), or "".
func lastAnswerWords(raw []byte) string {
	var answer string
	for _, l := range bytes.Split(raw, []byte("\n")) {
		var r struct {
			Type    string `json:"type"`
			Result  string `json:"result"`
			IsError bool   `json:"is_error"`
		}
		if json.Unmarshal(l, &r) == nil && r.Type == "result" {
			answer = r.Result
		}
	}
	best := ""
	for _, w := range regexp.MustCompile(`[A-Za-z][A-Za-z ]{10,}[A-Za-z]`).FindAllString(answer, -1) {
		if len(w) > len(best) {
			best = w
		}
	}
	return best
}

// TestBrowserHostileContentStaysText proves that what a run says cannot
// run code, change the page's structure or reach the network: a script,
// an image with an onerror, a closing </details>, a javascript: link, an
// image and an iframe from a server (the test's own, which must see no
// request), a bidi override, in the assistant's markdown, a tool's input
// and output and the final answer.
func TestBrowserHostileContentStaysText(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	payload := `<script>document.title='PWNED'</script> <img src="` + srv.URL + `/img" onerror="document.title='PWNED'"> ` +
		`</details></div></section> [click](javascript:document.title='PWNED') ![x](` + srv.URL + `/md.png) ` +
		"\u202egnp.exe <style>body{display:none}</style>\n\n<iframe src=\"" + srv.URL + "/frame\"></iframe>\n\n" +
		`<a href="` + srv.URL + `/link">link</a> <link rel="stylesheet" href="` + srv.URL + `/css">`
	q, _ := json.Marshal(payload)
	inner := string(q[1 : len(q)-1])
	lines := []string{
		`{"type":"system","subtype":"init","cwd":"/tmp","session_id":"s1","tools":["Bash"],"model":"m","permissionMode":"default","claude_code_version":"2.1.328"}`,
		`{"type":"assistant","message":{"id":"msg_1","model":"m","role":"assistant","content":[{"type":"text","text":"` + inner + `"}],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s1"}`,
		`{"type":"assistant","message":{"id":"msg_1","model":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"` + inner + `"}}],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s1"}`,
		`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"` + inner + `","is_error":true}]},"parent_tool_use_id":null,"session_id":"s1"}`,
		`{"type":"assistant","message":{"id":"msg_2","model":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"` + inner + `"}}],"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s1"}`,
		`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_2","type":"tool_result","content":"` + inner + `"}]},"parent_tool_use_id":null,"session_id":"s1"}`,
		`{"type":"result","subtype":"error_during_execution","is_error":true,"duration_ms":10,"num_turns":1,"result":"` + inner + `","session_id":"s1","total_cost_usd":0.01,"errors":["` + inner + `"]}`,
	}
	in := filepath.Join(t.TempDir(), "hostile.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	page := htmlPage(t, in)
	dom, console := browse(t, page, "")
	assert.Empty(t, console, "console messages (a blocked script or request is one)")
	assert.Zero(t, hits.Load(), "requests to the server the run names")
	assert.Contains(t, dom, "<title>Claude Code run</title>", "no script of the run changed the title")
	assert.Equal(t, 1, strings.Count(dom, "<script"), "the page's own script only")
	for _, bad := range []string{"<iframe", `href="javascript:`, "<img", "<link", "<style>body"} {
		assert.NotContains(t, dom, bad, "an element of the run's")
	}
	assert.NotRegexp(t, `<[a-zA-Z][^<>]*\sonerror=`, dom, "an element with an onerror of the run's")
	assert.Contains(t, dom, `class="tools-bar"`, "the page's script ran")
	assert.Contains(t, dom, "&lt;script&gt;document.title=", "the payload is on the page, as text")
	assert.Contains(t, dom, `\u202e`, "the bidi override is shown, not obeyed")
	// The events still end where they should: the payload's closing tags
	// closed nothing (every tool block is whole, the result is there).
	assert.Equal(t, 2, strings.Count(dom, `<details class="tool `))
	assert.Contains(t, dom, `<section class="outcome-block">`)
}

// TestBrowserScreenshots takes the screenshots the README shows: a real
// run with subagents and a failed one (go test -tags browser -update
// writes them to docs/).
func TestBrowserScreenshots(t *testing.T) {
	for name, capture := range map[string]string{"html-subagents.png": "05-subagents-async.jsonl", "html-failed.png": "09-auth-401.jsonl"} {
		abs, _ := filepath.Abs("../../testdata/events/" + capture)
		shot := filepath.Join(t.TempDir(), name)
		browse(t, htmlPage(t, abs), shot)
		fi, err := os.Stat(shot)
		require.NoError(t, err)
		assert.Greater(t, fi.Size(), int64(20000), "%s: a page, not a blank", name)
		if *update {
			b, err := os.ReadFile(shot)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join("../../docs", name), b, 0o644))
			fmt.Println("wrote docs/" + name)
		}
	}
}

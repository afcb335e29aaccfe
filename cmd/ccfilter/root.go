package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccfilter/ccfilter/internal/otlphttp"
	"github.com/ccfilter/ccfilter/pkg/archive"
	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/follow"
	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/ccfilter/ccfilter/pkg/redact"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// options holds every flag; cobra binds to it, nothing is global.
type options struct {
	Format       string
	Agent        string
	Where        string
	Raw          bool
	Join         bool
	Compact      bool
	Tab          bool
	Indent       int
	ExitStatus   bool
	Strict       bool
	FullCheck    bool
	Color        string
	LineBuffered bool
	MaxLineBytes int
	Input        string
	FullOutput   bool
	Redact       bool
	NoRedact     bool
	// grouping holds the values of the flags presets declare for their
	// groupings (usage --by ...), by name; grouped, the ones given.
	grouping map[string]*string
	grouped  map[string]bool
	Vars     []filter.Var
	// --follow: read the input as it is written; --status, --no-status:
	// the live status line on stderr.
	Follow, Status, NoStatus bool
	FollowGrace              time.Duration
	// --pid: the process writing the followed input; its end ends the follow.
	Pid int
	// --otlp-endpoint: the traces sent to a collector, not printed;
	// --otlp-protocol (""): the environment's, else protobuf.
	OTLPEndpoint       string
	OTLPProtocol       string
	OTLPTimeout        time.Duration
	otlpTimeoutChanged bool // else OTEL_EXPORTER_OTLP_TIMEOUT, when set
	// otlpExporter, when set, adjusts the exporter before it sends (tests:
	// a clock and waits of their own).
	otlpExporter func(*otlphttp.Exporter)
	// parent is the trace context of TRACEPARENT (read once: parentRead).
	parent     *render.TraceParent
	parentRead bool

	args []string // FILTER and FILEs as given
	// multiRun: the output holds several runs (files, sessions);
	// shared is what the runs of the output share (one CSV header).
	multiRun bool
	// redactor, when redacting: the run's one redactor, of each event's
	// values (runOne's stage) and of the partial-message deltas a secret
	// is split across.
	redactor *redact.Redactor
	// screens: the glance's scans of the input it read, for the report's
	// pass over it.
	screens *glanceScreens
	shared  *render.Shared
	// followed is the file being followed (--follow), read by runOne as
	// the input of its name; watch observes the live run.
	followed *follow.File
	watch    *watch
	// reading is the context of following, which Ctrl-C cancels.
	reading context.Context
	// writerGone is closed when the --pid process has ended.
	writerGone <-chan struct{}
	// spans, with --otlp-endpoint, sends each request of the traces.
	spans func(*render.OTLPBatch) error

	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	environ []string
	// rawStderr is stderr as given: the status line's escapes go there,
	// not through the escaping of messages.
	rawStderr io.Writer
	// statusTicks, when set, gives the status line its redraw ticks (for
	// tests, which redraw when they choose).
	statusTicks func() (<-chan time.Time, func())

	agentChanged bool
	// jsonChanged: --format not given, and one of jq's output flags
	// (-c, -r, -j, --tab, --indent) given.
	formatChanged, jsonFlags bool
	ctx                      context.Context

	// presets are the presets FILTER may name (preset.Builtin unless a
	// test adds its own).
	presets *preset.Registry
	// needs, when set, replaces what each run needs from the tracker: for
	// the tests that prove a preset prints the same with everything
	// tracked.
	needs func(stream.Needs) stream.Needs
	// wrapInput, when set, wraps each input's reader: for the tests that
	// prove the output does not depend on how the bytes arrive.
	wrapInput func(io.Reader) io.Reader
	// terminalIn, terminalOut and terminalErr, when set, say whether stdin,
	// stdout and stderr are terminals (for tests, which have none).
	terminalIn, terminalOut, terminalErr func() bool
	// archiveHook, when set, is the archive's pkg/archive Options.Hook
	// (tests: a fault, or a stop at a known step to kill the process).
	archiveHook func(archive.Point, string) error
}

// run is main without os.Exit: it parses args, runs, and maps the outcome
// to an exit code. It is the one place that prints errors.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	return runWith(&options{presets: preset.Builtin()}, args, stdin, stdout, stderr, environ)
}

// runWith is run with options set up beforehand (presets, test hooks).
func runWith(o *options, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	if o.terminalErr == nil {
		errOut := stderr // as given: stderr is wrapped below
		o.terminalErr = func() bool { return isTerminal(errOut) }
	}
	if o.terminalOut == nil {
		o.terminalOut = func() bool { return isTerminal(stdout) }
	}
	o.rawStderr = stderr
	if o.terminalErr() {
		// Messages quote the stream (a failed run's errors, a bad line):
		// on a terminal its control characters are escaped, as the text
		// view escapes them.
		stderr = safeWriter{stderr}
	}
	o.stdin, o.stdout, o.stderr, o.environ = stdin, stdout, stderr, environ
	rest, vars, err := extractVars(args)
	if err != nil {
		say(stderr, err.Error())
		fmt.Fprintln(stderr, "Try 'ccfilter --help' for more information.")
		return exitUsage
	}
	o.Vars = vars
	var code int
	cmd := newRootCmd(o, func(o *options) error {
		c, err := o.run(o.ctx)
		code = c
		return err
	})
	cmd.SetArgs(rest)
	cmd.SetIn(stdin)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	err = cmd.ExecuteContext(context.Background())
	if err == nil {
		return code
	}
	var fe *flagError
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		say(stderr, ee.msg)
		return ee.code
	case errors.As(err, &fe):
		say(stderr, fe.Error())
		fmt.Fprintln(stderr, "Try 'ccfilter --help' for more information.")
		return exitUsage
	case isBrokenPipe(err):
		return exitOK
	default:
		// cobra's own errors (unknown command, bad flag) are usage errors.
		say(stderr, err.Error())
		fmt.Fprintln(stderr, "Try 'ccfilter --help' for more information.")
		return exitUsage
	}
}

// extractVars takes jq's two-argument flags (--arg NAME VALUE, --argjson
// NAME JSON) out of args, since pflag only has one-value flags.
func extractVars(args []string) ([]string, []filter.Var, error) {
	var rest []string
	var vars []filter.Var
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if a != "--arg" && a != "--argjson" {
			rest = append(rest, a)
			continue
		}
		if i+2 >= len(args) {
			return nil, nil, fmt.Errorf("%s takes two arguments: NAME VALUE", a)
		}
		name, val := args[i+1], args[i+2]
		i += 2
		if a == "--arg" {
			vars = append(vars, filter.Var{Name: name, Value: val})
			continue
		}
		v, err := filter.JSONVar(name, val)
		if err != nil {
			return nil, nil, err
		}
		vars = append(vars, v)
	}
	return rest, vars, nil
}

func presetHelp(presets *preset.Registry) string {
	var b strings.Builder
	b.WriteString("Presets:\n")
	for _, p := range presets.List() {
		fmt.Fprintf(&b, "  %-10s %s\n", p.Name, p.Summary)
	}
	b.WriteString("\nExamples:\n")
	for _, e := range examples(presets) {
		fmt.Fprintf(&b, "  %s\n", e)
	}
	return b.String()
}

// examples are the command lines --help and the man page show: one per
// preset (from the preset table), then a few that are not a preset's.
func examples(presets *preset.Registry) []string {
	var out []string
	for _, p := range presets.List() {
		out = append(out, p.Example)
	}
	return append(out,
		`ccfilter 'select(kind == "tool_use") | .message.content[0].name' run.jsonl`,
		"ccfilter all --format markdown run.jsonl > report.md",
		"ccfilter all --format html run.jsonl > run.html",
		"ccfilter tools --format csv run.jsonl > tools.csv",
	)
}

// newRootCmd builds the command; runF runs it (tests pass their own to
// inspect the parsed options).
func newRootCmd(o *options, runF func(*options) error) *cobra.Command {
	if o.presets == nil {
		o.presets = preset.Builtin()
	}
	cmd := &cobra.Command{
		Use:   "ccfilter [flags] [FILTER] [FILE...]",
		Short: "Filter and convert Claude Code's stream-json output",
		Long: `ccfilter reads the event stream of
  claude -p --output-format stream-json --verbose
(or the JSON array of --output-format json), or the session transcripts
Claude Code keeps in ~/.claude/projects, from files or stdin, and prints
what you ask for: a preset, or any jq expression (gojq), as text, markdown,
NDJSON, CSV, JSON, HTML (one page) or OTLP (OpenTelemetry traces). It
reads OpenAI Codex CLI's (codex exec --json) and Google Gemini CLI's
(--output-format stream-json) runs and session files the same way,
recognised from their first events (--input forces a kind; docs/agents.md).

FILTER is a preset name or a jq expression run per event; none means "all".
A FILTER that compiles as jq is an expression, as in jq: "." is jq's identity
(each event as JSON), so to read the current directory write "./". An
event an expression outputs is shown by --format (text: readably), or as
JSON when -c, -r, -j, --tab or --indent is given and --format is not.
FILE is zero or more files (.gz and .zst are read transparently); none or "-"
reads stdin. A directory is every session (.jsonl, or .jsonl.zst as
'ccfilter archive' keeps them) in it, oldest first; a session's id (or a
unique prefix) is its transcript, in ~/.claude/projects or the archive.
Each file is its own run, output in argument order. 'ccfilter sessions'
lists the sessions; 'ccfilter archive' keeps a copy of them.

` + presetHelp(o.presets) + `
Expression functions (besides jq's): ` + funcNames() + `
(see docs/expressions.md). --where EXPR narrows a preset: ccfilter tools --where '.tool == "Bash"'.

` + exitCodesHelp(),
		Version:       buildVersion(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		// The first argument completes to a preset name, or to a file
		// when no preset starts with what was typed.
		ValidArgsFunction: o.completeArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			o.ctx = cmd.Context()
			o.agentChanged = cmd.Flags().Changed("agent")
			o.formatChanged = cmd.Flags().Changed("format")
			o.otlpTimeoutChanged = cmd.Flags().Changed("otlp-timeout")
			for name := range o.grouping {
				if cmd.Flags().Changed(name) {
					o.grouped[name] = true
				}
			}
			for _, f := range []string{"compact-output", "raw-output", "join-output", "tab", "indent"} {
				o.jsonFlags = o.jsonFlags || cmd.Flags().Changed(f)
			}
			for _, name := range []string{"arg", "argjson"} {
				if cmd.Flags().Changed(name) {
					return &flagError{fmt.Errorf("--%s takes two arguments: --%s NAME VALUE", name, name)}
				}
			}
			if err := o.validate(); err != nil {
				return err
			}
			return runF(o)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &flagError{err} })
	f := cmd.Flags()
	f.StringVarP(&o.Format, "format", "F", "text", "output format: text, markdown, ndjson, csv, json, html (one self-contained page; see docs/html.md), otlp (OpenTelemetry traces; usage --by: metrics; see docs/otel.md)")
	f.StringVar(&o.Agent, "agent", "", "whose events pass: main, sub, all, or a subagent id (default: main for text, all otherwise)")
	// pflag shows a `quoted` word of the usage as the value's name.
	f.StringVar(&o.Where, "where", "", "keep only what the jq condition `EXPR` is true for (see 'ccfilter presets' for what . is)")
	f.BoolVarP(&o.Raw, "raw-output", "r", false, "write string results without quotes")
	f.BoolVarP(&o.Join, "join-output", "j", false, "like -r, without a newline after each result")
	f.BoolVarP(&o.Compact, "compact-output", "c", false, "one line per JSON result")
	f.BoolVar(&o.Tab, "tab", false, "indent JSON with tabs")
	f.IntVar(&o.Indent, "indent", 2, "indent JSON with N spaces (0-7)")
	// --arg and --argjson take two values, which pflag cannot parse:
	// extractVars takes them out before it runs. They are declared for
	// --help, the man page and completion; given as --arg=X, pflag would
	// take them, which validate refuses.
	f.String("arg", "", "set $NAME to the string VALUE in the expression (`NAME VALUE`: two arguments, as in jq)")
	f.String("argjson", "", "set $NAME to the JSON value TEXT in the expression (`NAME TEXT`: two arguments, as in jq)")
	f.BoolVarP(&o.ExitStatus, "exit-status", "e", false, "exit 1 if the run failed, 4 if it has no result (expressions: jq's -e)")
	f.BoolVar(&o.Strict, "strict", false, "stop at the first malformed line (exit 5)")
	f.BoolVar(&o.FullCheck, "full-check", false, "validate every byte of every line, as jq does (by default lines that are passed over are only checked to be one whole object)")
	f.StringVar(&o.Color, "color", "auto", "colors: auto (terminal only, NO_COLOR respected), always, never")
	f.BoolVar(&o.LineBuffered, "line-buffered", false, "flush after every event (e.g. into tee)")
	f.IntVar(&o.MaxLineBytes, "max-line-bytes", 1<<30, "longest line accepted; longer lines are reported and skipped")
	f.BoolVar(&o.FullOutput, "full-output", false, "text and markdown: show a tool output a session transcript saved in its tool-results/ folder, not the preview the transcript holds")
	f.BoolVar(&o.Redact, "redact", false, "replace secrets (API keys, tokens, passwords, private keys, the values of this environment's secret variables) with [REDACTED:kind#n]; "+redactDefault()+"; see docs/redaction.md")
	f.BoolVar(&o.NoRedact, "no-redact", false, "write secrets as they are, also where --redact is on by default")
	o.groupingFlags(cmd)
	f.BoolVarP(&o.Follow, "follow", "f", false, "read FILE as it is written, as tail -f does, and end when its run ends (a stream: its result, then "+follow.DefaultGrace.String()+" with nothing written; a transcript: Ctrl-C); a project folder, or no FILE (the working directory's project): its newest session, switching to a newer one. Ctrl-C ends it with exit 130 as a stream cut there ends: what was read is printed, calls without a result listed, a report completed, no outcome made up (see docs/follow.md)")
	f.IntVar(&o.Pid, "pid", 0, "--follow: end once process PID has ended (as tail --pid), after what it wrote is read, with the run's exit code as far as it got")
	f.DurationVar(&o.FollowGrace, "follow-grace", follow.DefaultGrace, "--follow: how long nothing is written after a stream's result before the run counts as ended")
	f.BoolVar(&o.Status, "status", false, "show the live status line on stderr (a terminal) for any input: elapsed time, model calls, tools running, subagents, tokens and cost, retries, rate limits")
	f.BoolVar(&o.NoStatus, "no-status", false, "no status line (shown by default with --follow or a live pipe when stderr is a terminal)")
	f.StringVar(&o.OTLPEndpoint, "otlp-endpoint", "", "send the runs as OpenTelemetry traces (usage --by: its metrics, to /v1/metrics) to this collector's OTLP/HTTP receiver (`URL`, e.g. http://localhost:4318; path /v1/traces when it has none), or to the environment's (env: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT plus /v1/traces), instead of printing them, and say on stderr how many spans of which traces were sent; an answer that is not OTLP's fails (exit 5); headers, compression, TLS from the OTEL_EXPORTER_OTLP_ variables (see docs/otel.md)")
	f.StringVar(&o.OTLPProtocol, "otlp-protocol", "", "--otlp-endpoint: `http/protobuf` or http/json (default OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf; grpc is not sent)")
	f.DurationVar(&o.OTLPTimeout, "otlp-timeout", 10*time.Second, "--otlp-endpoint: how long one request may take, retries included; when not given, OTEL_EXPORTER_OTLP_TIMEOUT (milliseconds) if set")
	f.StringVar(&o.Input, "input", "auto", "what FILE is: auto (recognised from its first line of a known kind), "+inputKinds())
	f.SortFlags = false
	mustComplete(cmd, "format", formatNames()...)
	mustComplete(cmd, "color", "auto", "always", "never")
	mustComplete(cmd, "input", append([]string{"auto"}, strings.Fields(strings.ReplaceAll(inputKinds(), ",", ""))...)...)
	mustComplete(cmd, "agent", "main", "sub", "all")
	cmd.SetVersionTemplate("ccfilter {{.Version}}\n")
	cmd.AddCommand(newPresetsCmd(o), newSessionsCmd(o), newArchiveCmd(o))
	cmd.CompletionOptions.HiddenDefaultCmd = false
	return cmd
}

// completeArgs completes FILTER with the presets that start with what was
// typed; with none, and for every later argument, the shell completes file
// names.
func (o *options) completeArgs(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveDefault
	}
	var out []cobra.Completion
	for _, p := range o.presets.List() {
		if strings.HasPrefix(p.Name, toComplete) {
			out = append(out, cobra.CompletionWithDesc(p.Name, p.Summary))
		}
	}
	return out, cobra.ShellCompDirectiveDefault
}

// mustComplete completes a flag's value from a fixed list. It fails only
// for a flag that does not exist, a bug that every test run would show.
func mustComplete(cmd *cobra.Command, flag string, values ...string) {
	if err := cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)); err != nil {
		panic(err)
	}
}

func funcNames() string {
	var names []string
	for _, f := range filter.Funcs {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

func newPresetsCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "presets",
		Short: "List the presets, what each prints and what . is for --where",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			for _, p := range o.presets.List() {
				fmt.Fprintf(w, "%s\n  %s\n  --where: %s\n  example: %s\n\n", p.Name, p.Summary, whereDot(p), p.Example)
			}
			fmt.Fprintf(w, "Formats: %s\n", strings.Join(formatNames(), ", "))
			return nil
		},
	}
}

// whereDot says what . is for --where with a preset.
func whereDot(p preset.Preset) string {
	if p.Dot == "" {
		return "does not apply"
	}
	return ". is " + p.Dot
}

func formatNames() []string {
	var out []string
	for _, f := range render.Formats {
		out = append(out, string(f))
	}
	return out
}

// inputKinds lists the kinds of input, as --input takes them.
func inputKinds() string {
	var out []string
	for _, k := range input.Kinds() {
		out = append(out, string(k))
	}
	return strings.Join(out, ", ")
}

// validate checks flag values that pflag cannot.
func (o *options) validate() error {
	if o.Status && o.NoStatus {
		return &flagError{errors.New("--status and --no-status say the opposite: give one")}
	}
	if o.FollowGrace <= 0 {
		return &flagError{errors.New("--follow-grace must be positive")}
	}
	if o.Pid < 0 || o.Pid > 0 && !o.Follow {
		return &flagError{errors.New("--pid PID goes with --follow, PID a process's id")}
	}
	if o.Follow && len(o.grouped) > 0 {
		return &flagError{fmt.Errorf("--follow reads one run as it is written; --%s totals finished sessions", o.groupedFlag())}
	}
	if o.OTLPEndpoint != "" {
		if o.formatChanged && o.Format != string(render.OTLP) {
			return &flagError{fmt.Errorf("--otlp-endpoint sends traces: it goes with --format otlp, not %s", o.Format)}
		}
		o.Format = string(render.OTLP)
		if o.OTLPTimeout <= 0 {
			return &flagError{errors.New("--otlp-timeout must be positive")}
		}
	} else if o.OTLPProtocol != "" || o.otlpTimeoutChanged {
		return &flagError{errors.New("--otlp-protocol and --otlp-timeout go with --otlp-endpoint")}
	}
	if o.Redact && o.NoRedact {
		return &flagError{errors.New("--redact and --no-redact say the opposite: give one")}
	}
	if o.Input != "auto" && !slices.Contains(input.Kinds(), input.Kind(o.Input)) {
		return &flagError{fmt.Errorf("invalid --input %q (want auto, %s)", o.Input, inputKinds())}
	}
	if _, err := render.ParseFormat(o.Format); err != nil {
		return &flagError{err}
	}
	switch o.Color {
	case "auto", "always", "never":
	default:
		return &flagError{fmt.Errorf("invalid --color %q (want auto, always or never)", o.Color)}
	}
	if o.Indent < 0 || o.Indent > 7 {
		return &flagError{fmt.Errorf("--indent must be between 0 and 7")}
	}
	if o.MaxLineBytes <= 0 {
		return &flagError{fmt.Errorf("--max-line-bytes must be positive")}
	}
	return nil
}

// safeWriter escapes what a terminal would interpret in everything written
// through it (render.Sanitize, keeping newlines and tabs). A write is a
// whole message, never cut inside a character.
type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, render.Sanitize(string(p), true)); err != nil {
		return 0, err
	}
	return len(p), nil
}

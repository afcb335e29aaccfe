// Package preset holds ccfilter's presets. A preset is one file: its row
// (name, help, what . is for --where, an example), what it needs from the
// tracker (Needs, a stream.Needs value), which events it validates in full,
// what it does with each event and what it prints at the end (a Run). The
// registry (registry.go) is the one table of them, which the help, the
// completion and docs/presets.md read; an expression (expression.go) runs
// through the same interface, outside the table.
//
// A run never writes to the process: it writes to Config.Out and
// Config.Stderr, and says how the run ended (Status); the command maps that
// to an exit code.
package preset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Preset is one built-in filter.
type Preset struct {
	Name    string
	Summary string // one line, for --help and `ccfilter presets`
	// Dot says what `.` is for --where with this preset; empty for the
	// presets --where does not apply to.
	Dot string
	// DefaultAgent is the --agent value used when the flag is not given.
	DefaultAgent string
	// NoAgent, when set, says why --agent does not apply to the preset
	// (the command refuses it, exit 2); otherwise the preset applies it:
	// to its events, calls or rows.
	NoAgent string
	// Example is a command line shown in --help and docs.
	Example string
	// Words are what people call the preset's output when they guess a
	// name ("cost" for usage): a FILTER that is one of them, and neither a
	// file nor jq, is answered with "did you mean" the preset.
	Words []string
	// Formats lists the formats the preset prints (nil: all of them); the
	// others are refused rather than printing something that is not what
	// the format promises (a CSV with no rows).
	Formats []render.Format
	// Needs says what a run in configuration c needs from the tracker:
	// the less, the faster (nil: everything).
	Needs func(c *Config) stream.Needs
	// Grouping, when set, is the preset's account over many sessions at
	// once (usage --by): its flags, the command's to declare, and its
	// report. nil: the preset reads one run at a time.
	Grouping *Grouping
	// LinesHeld is how many times a run holds the longest line at once
	// (0: once, the decoder's buffer): the command's memory limit makes
	// room for that many.
	LinesHeld int
	// Glance: the preset's markdown report opens with the whole run in
	// brief (render.Glance), which the command reads ahead where it can
	// (a file, read twice; not a pipe).
	Glance bool
	// Start begins a run on one input; tr is a tracker made from Needs,
	// which the command feeds every event before Run.Event sees it.
	Start func(c *Config, tr *stream.Tracker) (Run, error)
}

// NeedsOf returns what a run of p in configuration c needs.
func (p Preset) NeedsOf(c *Config) stream.Needs {
	if p.Needs == nil {
		return stream.Needs{}
	}
	return p.Needs(c)
}

// Prints reports whether p prints format f.
func (p Preset) Prints(f render.Format) bool {
	if p.Formats == nil {
		return !slices.Contains(render.RunOnly, f)
	}
	return slices.Contains(p.Formats, f)
}

// PrintsOrGroups reports whether p prints format f, itself or as its
// grouping (usage --by -F otlp).
func (p Preset) PrintsOrGroups(f render.Format) bool {
	return p.Prints(f) || p.Grouping != nil && p.Grouping.Prints(f)
}

// CheckWhere says whether --where applies to p: the presets with no Dot
// print nothing --where could pick from.
func (p Preset) CheckWhere() error {
	if p.Dot == "" {
		return fmt.Errorf("--where does not apply to the %s preset", p.Name)
	}
	return nil
}

// CheckAgent says whether --agent applies to p.
func (p Preset) CheckAgent() error {
	if p.NoAgent != "" {
		return fmt.Errorf("--agent does not apply to the %s preset: %s", p.Name, p.NoAgent)
	}
	return nil
}

// Config is one input's run as the command set it up.
type Config struct {
	Format render.Format
	// Render are the renderer's options (Start sets Tracker and ToolCalls).
	Render render.Options
	Out    io.Writer
	Stderr io.Writer // warnings, notes, expression errors
	Source string    // the input's name in messages
	// Terminal says Out is a terminal: printers that write stream text
	// as it is escape control characters.
	Terminal bool
	Agent    filter.Agent
	Where    *filter.Expr // --where, nil without
	// ExitStatus (-e) has the status follow the run's outcome (presets) or
	// the last output (expressions).
	ExitStatus bool
	// Strict stops the run at the first runtime error (ErrStopped).
	Strict bool
}

// End is what the command knows of an input when it ends, which a run's
// last output says.
type End struct {
	// Diagnosis, when set, says what is wrong with the input as a whole
	// (EmptyInput, NotAStream, or that its lines are not JSON), which the
	// command has said on stderr: a run adds no message of its own about
	// the missing result, and a record of it says this.
	Diagnosis string
	// Refused says the diagnosis refuses the input as no stream at all
	// (its lines are not JSON, or none has a type ccfilter knows: exit
	// 5): a report writes nothing, since a report of it would be a table
	// of zeros on stdout, which a script could take for a run's. (An
	// empty input is not refused: its report says the missing result.)
	// What a run printed as the events came stays printed.
	Refused bool
}

// The diagnoses of an input as a whole.
const (
	// EmptyInput: most often what claude -p writes when --verbose is
	// missing.
	EmptyInput = "empty input: claude -p --output-format stream-json prints nothing without --verbose, or when it fails before it starts (see its stderr)"
	// NotAStream: JSON lines, but none of an event type ccfilter knows.
	NotAStream = "not a Claude Code event stream: no line has a known type"
)

// Run is a preset at work on one input.
type Run interface {
	// Prepare is called on each event as it is decoded (it is the
	// decoder's DecoderOptions.Prepare): it validates in full the events
	// the run prints or keeps facts from, and builds what it will need of
	// them; the other lines were checked for framing only. Its error
	// reports the line as malformed.
	Prepare(ev *stream.Event) error
	// Event handles one event after the tracker observed it; done are the
	// tool calls it completed.
	Event(ctx context.Context, ev *stream.Event, done []*stream.ToolCall) error
	// Flush makes what was written so far visible.
	Flush() error
	// Finish writes the end of the output and says how the run ended.
	Finish(end End) (Status, error)
}

// Status is how a run ended, as the exit code tells it.
type Status int

// The statuses.
const (
	OK       Status = iota
	Failed          // the run failed; an expression's last output was false or null (-e)
	NoResult        // the stream has no result; an expression had no output (-e)
	BadInput        // an expression or --where failed at run time
)

// ErrStopped ends a run at its first runtime error with Config.Strict.
var ErrStopped = errors.New("stopping at the first error (--strict)")

package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ccfilter/ccfilter/internal/statusline"
	"github.com/ccfilter/ccfilter/pkg/archive"
	"github.com/ccfilter/ccfilter/pkg/render"
)

// newArchiveCmd is `ccfilter archive [--to DIR] [PATH...]`: a copy of
// the project folders that outlives Claude Code's cleanup (pkg/archive).
func newArchiveCmd(o *options) *cobra.Command {
	var to string
	cmd := &cobra.Command{
		Use:   "archive [--to DIR] [PATH...]",
		Short: "Copy the sessions under ~/.claude/projects into an archive Claude Code's cleanup does not delete",
		Long: `Copy everything under each project folder (sessions, subagents' files,
.meta.json, tool-results/, workflows/) into the archive DIR, in the same
layout: DIR/projects/<project>/<session>.jsonl.zst, DIR/projects/<project>/
<session>/subagents/agent-<id>.jsonl.zst, .../tool-results/<id>.txt. JSON
lines (.jsonl) are compressed with zstd (.jsonl.zst), the rest copied as
it is. PATH is a folder of project folders or a project folder; none means
the projects Claude Code keeps ($CLAUDE_CONFIG_DIR/projects, else
~/.claude/projects). DIR defaults to $XDG_DATA_HOME/ccfilter, else
~/.local/share/ccfilter.

Each run copies what is new or changed (a session that grew is copied
again; one whose size and hash are those of its copy is skipped, by the
record DIR/manifest.json keeps) and deletes nothing, so a session Claude
Code deleted stays in the archive. Each copy is written to a temporary
file, synced, read back and compared, then renamed into place: a run
killed mid-copy leaves no torn file, and the next run finishes the job. A
session still being written is copied up to its last complete line. A
file that cannot be read (no permission, a FIFO) is named on stderr and
the run goes on, then exits 5; an archive that cannot be written (a full
disk) stops the run, nothing half-written left. A second run while one
holds DIR/.lock stops at once.

Every command reads the archive as it reads ~/.claude/projects
(ccfilter sessions DIR/projects, ccfilter usage --by day DIR/projects
~/.claude/projects counts each call once; sessions and usage take DIR for
DIR/projects), and a session's id is looked for in DIR/projects when
~/.claude/projects has no such session. See
docs/archive.md for a cron line, a systemd timer and a launchd agent.`,
		Example: "  ccfilter archive\n  ccfilter archive --to /backup/claude ~/.claude/projects\n  ccfilter sessions ~/.local/share/ccfilter/projects",
		RunE: func(cmd *cobra.Command, paths []string) error {
			if to == "" {
				to = o.archiveDir()
			}
			if len(paths) == 0 {
				paths = []string{o.projectsDir()}
			}
			return o.archive(cmd.Context(), to, paths)
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the archive's folder `DIR` (default $XDG_DATA_HOME/ccfilter, else ~/.local/share/ccfilter); the copies go under DIR/projects")
	return cmd
}

// archiveDir is the archive `ccfilter archive` writes by default:
// $XDG_DATA_HOME/ccfilter, else ~/.local/share/ccfilter (the XDG base
// directories' rule). One place, for the command and a session's id.
func (o *options) archiveDir() string {
	if dir, ok := o.getenv("XDG_DATA_HOME"); ok && filepath.IsAbs(dir) {
		return filepath.Join(dir, "ccfilter")
	}
	home, _ := o.getenv("HOME")
	return filepath.Join(home, ".local", "share", "ccfilter")
}

// archive runs pkg/archive with the progress on a terminal (stderr) and
// the files it could not read named on stderr.
func (o *options) archive(ctx context.Context, to string, paths []string) error {
	projects, err := archive.Projects(paths)
	if err != nil {
		return errorf(exitInput, "archive: %v", err)
	}
	var problems []string
	opts := archive.Options{To: to, Hook: o.archiveHook, Problem: func(err error) {
		problems = append(problems, err.Error())
		say(o.stderr, "archive: "+err.Error())
	}}
	stop := o.archiveProgress(&opts)
	res, err := archive.Run(ctx, projects, opts)
	stop()
	if err != nil {
		if errors.Is(err, archive.ErrBusy) {
			return errorf(exitInput, "archive: %v: nothing done", err)
		}
		return errorf(exitInput, "archive %s: stopped: %v (%d copied before; nothing half-written left)", to, err, res.Copied)
	}
	say(o.stderr, archiveSummary(to, res))
	if len(problems) > 0 {
		return errorf(exitInput, "archive %s: %d file(s) not read: %s", to, len(problems), strings.Join(firstN(problems, 3), "; "))
	}
	return nil
}

// archiveSummary is the line a run ends with, on stderr.
func archiveSummary(to string, r archive.Result) string {
	s := fmt.Sprintf("archive %s: %d files, %d copied (%s → %s), %d unchanged", to, r.Files, r.Copied,
		render.Bytes(int(r.Bytes)), render.Bytes(int(r.Stored)), r.Same)
	if r.Partial > 0 {
		s += fmt.Sprintf(", %d still being written (copied to the last complete line)", r.Partial)
	}
	if r.Failed > 0 {
		s += fmt.Sprintf(", %d not read", r.Failed)
	}
	return s
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}

// archiveProgress shows how far the run is on stderr, when it is a
// terminal (nothing otherwise: a cron job's mail holds the summary
// alone); the files not read are written above it. It returns its stop.
func (o *options) archiveProgress(opts *archive.Options) func() {
	if !o.terminalErr() {
		return func() {}
	}
	var mu sync.Mutex
	var now archive.Progress
	ticks, stopTicks := statusline.Every(statusEvery)
	if o.statusTicks != nil {
		ticks, stopTicks = o.statusTicks()
	}
	width := o.width(o.rawStderr) - 1
	line := statusline.Start(o.rawStderr, ticks, func() string {
		mu.Lock()
		p := now
		mu.Unlock()
		if p.Total == 0 {
			return ""
		}
		s := fmt.Sprintf("archive: %d/%d files, %d copied (%s) %s", p.Files, p.Total, p.Copied, render.Bytes(int(p.Bytes)), p.Current)
		if len(s) > width && width > 0 {
			s = s[:width]
		}
		return s
	})
	errOut := o.stderr
	o.stderr = line.Writer(errOut)
	opts.Progress = func(p archive.Progress) {
		mu.Lock()
		now = p
		mu.Unlock()
	}
	return func() {
		stopTicks()
		line.Stop()
		o.stderr = errOut
	}
}

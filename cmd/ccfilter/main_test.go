package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/archive"
	"github.com/ccfilter/ccfilter/pkg/preset"
)

// TestMain lets testscript run the real command in-process as "ccfilter".
func TestMain(m *testing.M) {
	if _, set := os.LookupEnv("GORACE"); !set {
		// A -race binary sleeps 1s before it exits; the scripts and the
		// docs' examples run this one as ccfilter a hundred times.
		os.Setenv("GORACE", "atexit_sleep_ms=10")
	}
	testscript.Main(m, map[string]func(){
		"ccfilter": func() {
			exitOnInterrupt()
			limitMemory()
			sayReady()
			code := runWith(&options{presets: preset.Builtin(), archiveHook: archiveStop()}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ())
			reportPeak()
			os.Exit(code)
		},
	})
}

// liveTimeout bounds a wait for something that happens at once on a quiet
// machine (output after an event, the end after Ctrl-C): generous, so that
// a machine busy with other work passes, and still finite, so that a hang
// fails instead of stalling the run.
const liveTimeout = 30 * time.Second

// readyEnv is the descriptor a test that signals the command passes it
// (exec.Cmd.ExtraFiles[0]) to learn when its Ctrl-C handler is in place:
// a signal sent earlier kills the process as the runtime's default does, and
// a fixed sleep before the signal is a bet on the machine's load.
const readyEnv = "CCFILTER_TEST_READY_FD"

// archiveStopEnv, when set to N, stops `ccfilter archive` at its Nth
// copy written in full and not yet renamed into place: it says so on
// descriptor 3 (exec.Cmd.ExtraFiles[0]) and waits there for the test's
// SIGKILL, so the kill falls mid-copy at a known step, with no sleep.
const archiveStopEnv = "CCFILTER_TEST_ARCHIVE_STOP"

func archiveStop() func(archive.Point, string) error {
	n, err := strconv.Atoi(os.Getenv(archiveStopEnv))
	if err != nil {
		return nil
	}
	return func(at archive.Point, rel string) error {
		if at == archive.AtRename {
			if n--; n == 0 {
				f := os.NewFile(3, "stopped")
				f.WriteString("stopped " + rel + "\n")
				f.Close()
				select {} // until killed
			}
		}
		return nil
	}
}

// sayReady writes one line to the descriptor readyEnv names, if any, and
// closes it.
func sayReady() {
	if os.Getenv(readyEnv) == "" {
		return
	}
	f := os.NewFile(3, "ready")
	f.WriteString("ready\n")
	f.Close()
}

// TestScripts runs the end-to-end cases in testdata/script: each runs the
// built command on real captures ($EVENTS) and checks stdout, stderr and the
// exit code.
func TestScripts(t *testing.T) {
	events, err := filepath.Abs("../../testdata/events")
	require.NoError(t, err)
	testscript.Run(t, testscript.Params{
		Dir:           "../../testdata/script",
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("EVENTS", events)
			env.Setenv("NO_COLOR", "")
			return nil
		},
	})
}

// TestNewRootCmd proves the flags land in the options struct (runF stops
// before anything runs).
func TestNewRootCmd(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want func(t *testing.T, o *options)
	}{
		{"defaults", []string{}, func(t *testing.T, o *options) {
			assert.Equal(t, "text", o.Format)
			assert.Equal(t, "auto", o.Color)
			assert.False(t, o.agentChanged)
		}},
		{"short flags", []string{"-F", "csv", "-rce", "tools", "a.jsonl"}, func(t *testing.T, o *options) {
			assert.Equal(t, "csv", o.Format)
			assert.True(t, o.Raw)
			assert.True(t, o.Compact)
			assert.True(t, o.ExitStatus)
			assert.Equal(t, []string{"tools", "a.jsonl"}, o.args)
		}},
		{"agent", []string{"--agent", "sub", "text"}, func(t *testing.T, o *options) {
			assert.Equal(t, "sub", o.Agent)
			assert.True(t, o.agentChanged)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := &options{}
			ran := false
			cmd := newRootCmd(o, func(o *options) error { ran = true; return nil })
			cmd.SetArgs(tc.args) // never nil: cobra would parse the test's own flags
			require.NoError(t, cmd.Execute())
			require.True(t, ran)
			tc.want(t, o)
		})
	}
}

// TestExtractVars proves --arg and --argjson take two values, as in jq.
func TestExtractVars(t *testing.T) {
	rest, vars, err := extractVars([]string{"--arg", "n", "v", "-r", "--argjson", "j", `{"a":[1,2.5]}`, "."})
	require.NoError(t, err)
	assert.Equal(t, []string{"-r", "."}, rest)
	require.Len(t, vars, 2)
	assert.Equal(t, "v", vars[0].Value)
	assert.Equal(t, map[string]any{"a": []any{1, 2.5}}, vars[1].Value)
	_, _, err = extractVars([]string{"--argjson", "j", "{"})
	assert.ErrorContains(t, err, "invalid JSON")
	_, _, err = extractVars([]string{"--arg", "only-name"})
	assert.ErrorContains(t, err, "two arguments")
}

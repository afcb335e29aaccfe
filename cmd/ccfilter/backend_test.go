//go:build jaeger || prometheus

package main

// What the tests against a real backend share (Jaeger: -tags jaeger;
// Prometheus: -tags prometheus).

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// startBackend runs the server bin with args until the test ends (then
// it is stopped and waited for), its output kept and shown, its last
// lines, when the test failed. name names it in that log.
func startBackend(t *testing.T, name, bin string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, args...)
	logs := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = logs, logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("%s's log:\n%s", name, tail(logs.String()))
		}
	})
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitFor polls ok until it holds, for at most two minutes (a loaded
// machine), failing then.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 2 minutes for %s", what)
		}
		time.Sleep(100 * time.Millisecond) // polling a server: no event to wait on
	}
}

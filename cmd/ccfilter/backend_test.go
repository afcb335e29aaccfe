//go:build jaeger || prometheus

package main

// What the tests against a real backend share (Jaeger: -tags jaeger;
// Prometheus: -tags prometheus).

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

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

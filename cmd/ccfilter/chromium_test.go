//go:build browser || jaeger || prometheus

package main

import (
	"os/exec"
	"testing"
)

// chromium finds the browser, or fails: the tests that use it are asked
// for by name (make test-browser installs it: apt-get install chromium).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium on PATH: make test-browser installs it (apt-get install chromium)")
	return ""
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

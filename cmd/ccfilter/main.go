// Command ccfilter filters and converts the event stream that
// `claude -p --output-format stream-json --verbose` prints.
package main

import "os"

// version is set at build time: -ldflags "-X main.version=$(git describe)".
var version = "dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}

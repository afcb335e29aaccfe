//go:build race

package stream_test

// raceEnabled: the race detector slows the long streaming tests about
// tenfold; they stream fewer events under it.
const raceEnabled = true

package stream_test

import (
	"fmt"
	"io"
	"os"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Example reads a real capture (two foreground subagents), prints each tool
// call as its result arrives, then the outcome and the deduplicated usage.
func Example() {
	f, err := os.Open("../../testdata/events/05b-subagents-foreground.jsonl")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	dec := stream.NewDecoder(f, stream.DecoderOptions{Source: "05b"})
	tr := stream.NewTracker(stream.TrackerOptions{})
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("skipping:", err) // a malformed line; the stream goes on
			continue
		}
		for _, c := range tr.Observe(ev) {
			fmt.Printf("line %d: %s by %s, error=%v\n", ev.Line, c.Name, c.AgentLabel(), c.IsError)
		}
	}
	for _, s := range tr.Subagents() {
		fmt.Printf("subagent %s (%s): %s, %d tokens\n", s.Description, s.Type, s.Status, s.Usage.TotalTokens)
	}
	out := tr.Outcome()
	u := tr.Usage()
	fmt.Printf("outcome: %s after %d result(s); %d model calls, %d output tokens\n", out.Status, out.Results, u.Calls, u.Total.OutputTokens)
	// Output:
	// line 11: Write by a568b470120d5008e, error=false
	// line 14: Agent by main, error=false
	// line 17: Bash by af89e26f9e8dce195, error=false
	// line 20: Agent by main, error=false
	// subagent Create alpha file (general-purpose): completed, 8821 tokens
	// subagent Run beta command (general-purpose): completed, 8767 tokens
	// outcome: success after 1 result(s); 4 model calls, 256 output tokens
}

package stream

// Needs says which parts of a stream's state a consumer uses, so that the
// Tracker does no work for the rest. A consumer states it once (a preset
// does, for the format it prints): the Tracker reads it, instead of a flag
// per shortcut. The zero value needs everything.
type Needs struct {
	// Follow is how much of the stream the Tracker follows.
	Follow Follow
	// NoResultSizes says ToolCall.ResultBytes is never shown: the Tracker
	// leaves it at 0 and no tool result's text is measured. Counting the
	// decoded text of every tool result was a sixth to a quarter of a run
	// that prints only text or usage.
	NoResultSizes bool
	// NoOwners says no event's agent is shown: the Tracker does not
	// remember, for each tool call that starts no subagent, the agent that
	// made it, which takes a look at every tool call (a tenth of final's
	// time). Without that memory a tool_progress of a hook on a Bash call
	// (parent_tool_use_id: that call) is taken for a subagent's event.
	NoOwners bool
	// NoFinalText says the final answer is never shown (FinalText): the
	// Tracker keeps no fallback text of the main agent's last message,
	// which decoded every text event (with the lookup of its message id,
	// a twentieth of types). Only final shows it.
	NoFinalText bool
	// NoToolTally says the Tracker's Tally counts no tool call and no tool
	// error (its ToolCalls, Tools, OtherTools and ToolErrors stay 0): no
	// view of the preset reads them (a report's tool calls are the
	// account's, Tracker.Account, counted as calls are paired). Finding
	// them walked every assistant message's blocks and every tool result:
	// a ninth of usage.
	NoToolTally bool
	// Kinds, when not empty, are the only kinds of events the consumer
	// (its tracker at this Follow level, and what it prints) reads: a
	// reader that makes events of another agent's records (pkg/input's
	// Gemini reader, DecoderOptions.Kinds) need not make the others; it
	// still reads their records for what they change (a tool result ends
	// the turn's text). A Claude Code stream's lines are its events
	// already and are read whatever this says. On a Gemini stream's small
	// lines, making the events final never looks at was a third of its
	// time. The type counts then count only these kinds: a consumer
	// that shows them (types) leaves this empty.
	Kinds KindSet
	// ValidatesCalls says the consumer validates in full the assistant
	// events it reads (tools: every tool call), and the inits and results,
	// and reads every tool result with its size: a reader that frames
	// lines ahead does that there (DecoderOptions.ValidateAhead), off the
	// consumer's goroutine.
	ValidatesCalls bool
}

// Follow is how much of a stream a Tracker follows; each level does less
// work than the one before.
type Follow uint8

// The levels.
const (
	// FollowAll pairs tool calls with their results, builds the subagent
	// tree, sums usage and records the outcome.
	FollowAll Follow = iota
	// FollowUsage sums usage and records the outcome, but follows no tool
	// call: Observe returns no calls, OpenCalls is empty,
	// Subagent.ToolCalls stays 0, and subagents are known from their own
	// events and task events only (not from the Agent calls that started
	// them, so without description or type). Pairing a call with its
	// result needs every tool result found, a walk over most of a
	// stream's bytes.
	FollowUsage
	// FollowOutcome records only the outcome, the final-answer text and
	// the type counts: no usage, no subagents, no tool calls. On a stream
	// of long tool results the rest was a third of the time of a run that
	// prints text.
	FollowOutcome
)

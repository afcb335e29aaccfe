package input

import (
	"io"
	"os"
	"path/filepath"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// GeminiSessionsTree is Gemini CLI's default tree of chat files,
// ~/.gemini/tmp (a folder per project, its chats/ under it), for the loop
// that reads every input kind's default tree when sessions and usage --by
// are given no PATH: getenv and home are the environment's (GEMINI_CLI_HOME,
// which the CLI reads in place of the home folder, else home).
func GeminiSessionsTree(getenv func(string) string, home string) string {
	if h := getenv("GEMINI_CLI_HOME"); h != "" {
		home = h
	}
	return filepath.Join(home, ".gemini", "tmp")
}

// IsGeminiChatFile reports whether path is a Gemini chat file, by the
// first line of its head that a kind recognises, as Open tells (false
// for what is not a regular file).
func IsGeminiChatFile(path string) bool {
	if _, err := RegularFile(path); err != nil {
		return false // a FIFO would be waited on forever: its caller says what it is
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	h, _, err := sniff(f, "", Formats())
	return err == nil && h.format.Kind == GeminiSession
}

// IsGeminiChatHead reports whether the file at path, whose first line is
// first, is a Gemini CLI chat file: a file whose first line is a session
// transcript's record is not, and only another's head is sniffed
// (IsGeminiChatFile opens the file once more). A reader of a tree's
// sessions asks it as it reads the first line, not of each session before
// reading it: two opens, stats and reads of a head per session were a
// tenth of usage --by day's system time (issue 41).
func IsGeminiChatHead(path string, first []byte) bool {
	return !IsTranscriptRecord(first) && IsGeminiChatFile(path)
}

// EachGeminiChatEvent calls fn with each event the reader of the Gemini
// chat file path makes (its subagents' files joined: agent says an event
// is a subagent's), and returns the lines it passed over, each with its
// line number.
func EachGeminiChatEvent(path string, fn func(ev *stream.Event, agent bool)) (bad []error, err error) {
	if _, err := RegularFile(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := NewGeminiSessionReader(f, path, stream.DecoderOptions{Source: path})
	defer r.Close()
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return bad, nil
		}
		if err != nil {
			bad = append(bad, err)
			continue
		}
		fn(ev, ev.ParentToolUseID() != "" || ev.Kind == stream.KindSubagentPrompt)
	}
}

// scanGeminiChat lists a Gemini chat file as ScanSessionWith lists a
// transcript, from the events its reader makes: the calls' usage once
// each, tool calls (its subagents' too), prompts, times; each event goes
// to also (Agent: a subagent's; Main), so the caller's account reads it
// as it reads a transcript's records.
func scanGeminiChat(path string, s Session, also *Also) (Session, error) {
	s.CLI = geminiCLI // (the init, which says so too, is made from the header, which may be cut)
	msgs := map[string]stream.Usage{}
	// The subagents its reader joined (their files, chats/<session
	// id>/<agentId>.jsonl), by the call each started: their calls are
	// theirs, not the main agent's tokens.
	agents := map[string]bool{}
	bad, err := EachGeminiChatEvent(path, func(ev *stream.Event, agent bool) {
		if ev.Kind == stream.KindInit {
			if id := ev.Str("session_id"); id != "" {
				s.ID, s.named = id, true // (an init made without the header has none: the file's name stays)
			}
			s.CLI = stream.CLIOf(ev.Str("cli"), "").ID
		}
		if ev.Type == "assistant" {
			if ev.Kind == stream.KindToolUse {
				s.ToolCalls++
			}
			if agent {
				agents[ev.ParentToolUseID()] = true
			} else {
				a := ev.AssistantHead()
				msgs[a.MessageID] = a.Usage
			}
		}
		switch {
		case agent && also.Agent != nil:
			also.Agent(ev)
		case !agent:
			s.add(ev)
			if also.Main != nil {
				also.Main(ev)
			}
		}
	})
	s.Bad = append(s.Bad, bad...)
	var u stream.Usage
	for _, m := range msgs {
		u = u.Add(m)
	}
	s.Tokens, s.Subagents = u.Total(), len(agents)
	return s, err
}

package input

import (
	"bufio"
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

// isGeminiChatFile reports whether path's first line is a Gemini chat
// file's header.
func isGeminiChatFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head, _, _ := bufio.NewReader(io.LimitReader(f, headSize)).ReadLine()
	return isGeminiChat(head)
}

// scanGeminiChat lists a Gemini chat file as ScanSessionWith lists a
// transcript, from the events its reader makes (its subagents' files
// joined): the calls' usage once each, tool calls, prompts, times; each
// event goes to also.Main, so the caller's account (usage --by) reads it
// as it reads a transcript's records.
func scanGeminiChat(path string, s Session, also *Also) (Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	r := NewGeminiSessionReader(f, path, stream.DecoderOptions{Source: path})
	defer r.Close()
	msgs := map[string]stream.Usage{}
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.Bad = append(s.Bad, err)
			continue
		}
		if ev.Kind == stream.KindInit {
			s.ID = ev.Str("session_id")
			s.named = true
		}
		if ev.Type == "assistant" {
			if ev.Kind == stream.KindToolUse {
				s.ToolCalls++
			}
			a := ev.AssistantHead()
			msgs[a.MessageID] = a.Usage
		}
		if ev.ParentToolUseID() != "" || ev.Kind == stream.KindSubagentPrompt {
			if also.Agent != nil {
				also.Agent(ev)
			}
			continue
		}
		s.add(ev)
		if also.Main != nil {
			also.Main(ev)
		}
	}
	var u stream.Usage
	for _, m := range msgs {
		u = u.Add(m)
	}
	s.Tokens = u.Total()
	return s, nil
}

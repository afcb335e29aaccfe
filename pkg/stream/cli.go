package stream

// CLI is the agent program that wrote an input: Claude Code, or another
// agent's CLI read by an input kind of its own (pkg/input). A report's
// first line names it, so that an input read as the wrong kind is
// impossible to miss.
type CLI struct {
	// ID is the name an init event carries in its "cli" field
	// ("claude-code" when it has none: Claude Code's own init has none).
	ID string `json:"id"`
	// Name is what a report shows ("Claude Code").
	Name string `json:"name"`
	// Version is the CLI's version where the input gives it (an init's
	// claude_code_version, or the cli_version an input kind writes).
	Version string `json:"version,omitempty"`
	// Provider is the model provider the CLI calls, as the OpenTelemetry
	// GenAI conventions name it (gen_ai.provider.name): "anthropic",
	// "openai", "gcp.gemini".
	Provider string `json:"-"`
}

// ClaudeCodeID is the id of Claude Code, the CLI of an input whose init
// names none.
const ClaudeCodeID = "claude-code"

// cliNames are the names reports show, by id: one row per input kind's
// CLI. An id not here is shown as it is.
var cliNames = map[string]string{
	ClaudeCodeID: "Claude Code",
	"codex":      "Codex CLI",
	"gemini":     "Gemini CLI",
}

// cliProviders are the providers of the CLIs, by id (gen_ai.provider.name).
var cliProviders = map[string]string{
	ClaudeCodeID: "anthropic",
	"codex":      "openai",
	"gemini":     "gcp.gemini",
}

// CLIOf returns the CLI of id (ClaudeCodeID when id is empty) with version.
func CLIOf(id, version string) CLI {
	if id == "" {
		id = ClaudeCodeID
	}
	name, ok := cliNames[id]
	if !ok {
		name = id
	}
	return CLI{ID: id, Name: name, Version: version, Provider: cliProviders[id]}
}

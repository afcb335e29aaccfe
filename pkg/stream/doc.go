// Package stream decodes, classifies and tracks the event stream that
// `claude -p --output-format stream-json --verbose` prints.
//
// The pipeline is Reader → Event (with its Kind) → Tracker:
//
//   - A Reader yields the Events of one input. Decoder, the reference
//     Reader, cuts the input into lines (LF only; a trailing CR, a UTF-8 BOM,
//     blank lines and a missing final newline are tolerated), checks each
//     line (DecoderOptions.Check: in full, or only that it is one whole
//     object, leaving full validation of the events used to Event.Validate)
//     and returns it as an Event that keeps the line's exact bytes. A
//     malformed or over-long line is an error for that line only; the next
//     call goes on. The single JSON array of --output-format json is read
//     element by element. It reads through one bufio.Reader on the
//     caller's goroutine; memory is the read buffer plus the longest line.
//   - Each Event carries its type, subtype and Kind, found without building
//     the JSON tree. Typed views (Assistant, ToolResults, Result, Task, Init,
//     Delta) read further fields on demand; Value builds the full tree, once,
//     for gojq.
//   - Tracker pairs tool calls with their results, builds the subagent tree,
//     deduplicates token usage by message.id and records the outcome (the
//     last result wins). It is bounded whatever the input.
//
// The package has no global state and never touches the process's
// standard streams: it takes an io.Reader and leaves output to the caller.
package stream

# Independent oracle for pkg/stream's capture tests: computes, with jq alone,
# what the Go code must find in one capture. Run by `make expectations`:
#   jq -n -f testdata/expect/expect.jq testdata/events/NAME.jsonl > testdata/expect/NAME.json
# It restates the classification rules of docs/stream-format.md on purpose,
# so that a change in the Go tables that is not also made here fails a test.

def syskind: {
  "init":"init","api_retry":"retry","permission_denied":"permission_denied",
  "hook_started":"hook","hook_progress":"hook","hook_response":"hook",
  "task_started":"task","task_updated":"task","task_notification":"task","background_tasks_changed":"task",
  "task_progress":"progress","thinking_tokens":"progress","status":"progress",
  "compact_boundary":"compact",
  "informational":"notice","model_fallback":"notice","model_refusal_fallback":"notice",
  "model_refusal_no_fallback":"notice","notification":"notice","local_command_output":"notice",
  "task_summary":"info","post_turn_summary":"info","session_state_changed":"info","files_persisted":"info",
  "memory_recall":"info","plugin_install":"info","commands_changed":"info","elicitation_complete":"info",
  "control_request_progress":"info","worker_shutting_down":"info","mirror_error":"info",
  "session_writes_lost":"info","session_metadata":"info"
}[.subtype] // "unknown";

def otherkind: {
  "stream_event":"delta","result":"result","tool_progress":"progress","rate_limit_event":"info",
  "active_goal":"info","autocompact_state":"info","auth_status":"info","tool_use_summary":"info",
  "prompt_suggestion":"info","conversation_reset":"info","control_request":"info","control_response":"info",
  "control_cancel_request":"info","keep_alive":"info","transcript_mirror":"info","command_lifecycle":"info"
}[.type] // "unknown";

def kind:
  if .type == "system" then syskind
  elif .type == "assistant" then
    if .is_api_error_message == true or ((.error|type) == "string" and .message.model == "<synthetic>") then "api_error"
    elif (.message.content|type) == "string" then "text"
    else (.message.content[0].type) as $t
      | if $t == "text" then "text"
        elif $t == "thinking" or $t == "redacted_thinking" then "thinking"
        elif $t == "tool_use" or $t == "server_tool_use" or $t == "mcp_tool_use" then "tool_use"
        else "unknown" end
    end
  elif .type == "user" then
    (.message.content) as $c
    | if ($c|type) == "array" and any($c[]; .type == "tool_result") then "tool_result"
      else (if ($c|type) == "string" then $c else ([$c[]? | select(.type == "text") | .text][0] // "") end) as $t
        | if ($t|type) == "string" and ($t|startswith("[Request interrupted by user")) then "interrupt"
          elif .isSynthetic == true then "synthetic"
          elif (.parent_tool_use_id|type) == "string" then "subagent_prompt"
          else "prompt" end
      end
  else otherkind end;

def nz($new; $old): if ($new // 0) != 0 then $new else $old end;

[inputs] as $ev
| {
  kinds: [$ev[] | kind],
  # Tool calls in the order their results arrive: [tool_use_id, tool name, is_error].
  pairs: (
    ([$ev[] | select(.type == "assistant") | .message.content[]? | select(.type == "tool_use") | {key: .id, value: .name}] | from_entries) as $names
    | [$ev[] | select(.type == "user") | .message.content | arrays | .[] | select(.type == "tool_result")
       | select($names[.tool_use_id] != null) | [.tool_use_id, $names[.tool_use_id], (.is_error == true)]]),
  # Tool calls that never got a result.
  open: (
    ([$ev[] | select(.type == "user") | .message.content | arrays | .[] | select(.type == "tool_result") | .tool_use_id]) as $done
    | [$ev[] | select(.type == "assistant") | .message.content[]? | select(.type == "tool_use") | .id | select(. as $i | $done | index($i) | not)]),
  # Subagents: Agent/Workflow calls with their final status.
  subagents: [
    $ev[] | select(.type == "assistant") | .message.content[]? | select(.type == "tool_use" and (.name == "Agent" or .name == "Task" or .name == "Workflow"))
    | .id as $id
    | {tool_use_id: $id,
       description: (.input.description // ([$ev[] | select(.subtype == "task_started" and .tool_use_id == $id) | .description][0]) // ""),
       type: (if .name == "Workflow" then "workflow" else (.input.subagent_type // "general-purpose") end),
       status: ([$ev[] | select(.tool_use_id == $id or (.type == "user" and any(.message.content[]?; .type == "tool_result" and .tool_use_id == $id)))
                 | if .subtype == "task_notification" then .status
                   elif .type == "user" then (if .tool_use_result.status? == "completed" then "completed" elif any(.message.content[]; .is_error == true) then "failed" else empty end)
                   else empty end] | last // "running")}
  ],
  outcome: ([$ev[] | select(.type == "result")] as $r
    | {results: ($r|length),
       status: (if ($r|length) == 0 then "no_result" elif $r[-1].is_error then "failed" else "success" end),
       subtype: ($r[-1].subtype // "")}),
  # Usage deduplicated by message.id: the last usage seen for an id counts
  # once; a message_delta's non-zero counts replace the block's placeholders.
  usage: (
    reduce ($ev[] | select((.type == "assistant" and .message.model != "<synthetic>") or (.type == "stream_event" and (.event.type == "message_start" or .event.type == "message_delta")))) as $e
      ({};
       if $e.type == "assistant" then
         (.[$e.message.id].x // false) as $x | (.[$e.message.id].u.o // 0) as $o
         | .[$e.message.id] = {model: $e.message.model, sub: ($e.parent_tool_use_id != null), x: ($x or $e.message.stop_reason != null),
             u: {i: $e.message.usage.input_tokens, o: (if $x and $e.message.stop_reason == null then $o else $e.message.usage.output_tokens end), cc: ($e.message.usage.cache_creation_input_tokens // 0), cr: ($e.message.usage.cache_read_input_tokens // 0)}}
       elif $e.event.type == "message_start" then
         ($e.event.message.usage) as $u | .[$e.event.message.id] |= (if . == null then {model: $e.event.message.model, sub: ($e.parent_tool_use_id != null), x: false, u: {i: 0, o: 0, cc: 0, cr: 0}} else . end)
         | .[$e.event.message.id].u |= {i: nz($u.input_tokens; .i), o: nz($u.output_tokens; .o), cc: nz($u.cache_creation_input_tokens; .cc), cr: nz($u.cache_read_input_tokens; .cr)}
       elif .[$e.api_message_id] != null then
         ($e.event.usage) as $u
         | .[$e.api_message_id].u |= {i: nz($u.input_tokens; .i), o: nz($u.output_tokens; .o), cc: nz($u.cache_creation_input_tokens; .cc), cr: nz($u.cache_read_input_tokens; .cr)}
         | .[$e.api_message_id].x |= (. or ($e.event.delta.stop_reason != null))
       else . end)
    | [.[]] as $m
    # A call's output count is a placeholder unless its final count came
    # (a message_delta or a message with its stop_reason): else the total
    # output is the last result's modelUsage for the models that answered,
    # when that says more.
    | ([$m[].u.o] | add // 0) as $events
    | ([$m[].model] | unique) as $models
    | ([$ev[] | select(.type == "result")][-1].modelUsage // {} | to_entries | map(select(.key as $k | $models | index($k))) | map(.value.outputTokens) | add // 0) as $reported
    | {calls: ($m|length),
       input: ([$m[].u.i] | add // 0),
       output: (if any($m[]; .x | not) and $reported > $events then $reported else $events end),
       cache_creation: ([$m[].u.cc] | add // 0), cache_read: ([$m[].u.cr] | add // 0),
       subagent_output: ([$m[] | select(.sub) | .u.o] | add // 0)}),
  cost: ([$ev[] | select(.type == "result")][-1].total_cost_usd // null)
}

// The 2026-07-28 fixtures of the Go everything server (see examples/SURFACE.md): multi
// round-trip (MRTR) tools and prompt, a tool needing a client capability, a logging tool,
// list change triggers, a tool with an x-mcp-header argument, and a skill.
//
// An MRTR handler returns ferrite.InputRequired when it needs the client's input and reads the
// answers from the request on the retry. The same handler serves both eras: a 2026-07-28
// client retries with the answers; on a handshake-era session the library asks the client
// itself and calls the handler again.
package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

// SkillMD and skillExamples are the skill the conformance suite reads (SEP-2640).
const skillMD = "---\nname: add-numbers\ndescription: Add two integers with the add tool and report the sum\n---\n\n# Add numbers\n\nCall the add tool with integer arguments a and b, then report the sum.\nWorked examples are in references/EXAMPLES.md.\n"
const skillExamples = "# Examples\n\n- add(a=2, b=3) returns 5\n- add(a=-4, b=10) returns 6\n"

// form is a one-field form.
func form(field string) obj {
	return obj{"type": "object", "properties": obj{field: obj{"type": "string"}}, "required": []string{field}}
}

func userTextSampling(text string, maxTokens int) obj {
	return obj{"messages": []obj{{"role": "user", "content": obj{"type": "text", "text": text}}}, "maxTokens": maxTokens}
}

func askName() ferrite.InputRequest { return ferrite.ElicitRequest("What is your name?", form("name")) }
func askCapital() ferrite.InputRequest {
	return ferrite.SampleRequest(userTextSampling("What is the capital of France?", 100))
}
func askConfirm() ferrite.InputRequest {
	return ferrite.ElicitRequest("Please confirm", obj{"type": "object", "properties": obj{"ok": obj{"type": "boolean"}},
		"required": []string{"ok"}})
}

func ask(requests map[string]ferrite.InputRequest, state string) (any, error) {
	return ferrite.InputRequired{Requests: requests, State: state}, nil
}

// The client's answers, decoded the way the core's result types decode them.

type elicitResult struct {
	Action  string                     `json:"action"`
	Content map[string]json.RawMessage `json:"content"`
}

type createMessageResult struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      *string         `json:"model"`
	StopReason *string         `json:"stopReason"`
}

type listRootsResult struct {
	Roots *[]struct {
		URI  *string `json:"uri"`
		Name *string `json:"name"`
	} `json:"roots"`
}

// answer decodes the answer to key into v and checks it with valid: (false, nil) when
// absent, a -32602 error when it does not decode.
func answer(req ferrite.Request, key, kind string, v any, valid func() bool) (bool, error) {
	raw, ok := req.InputResponse(key)
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil || !valid() {
		return false, ferrite.InvalidParams("input response %q: not a valid %s", key, kind)
	}
	return true, nil
}

func elicitAnswer(req ferrite.Request, key string) (*elicitResult, bool, error) {
	var r elicitResult
	ok, err := answer(req, key, "ElicitResult", &r, func() bool {
		return r.Action == "accept" || r.Action == "decline" || r.Action == "cancel"
	})
	return &r, ok, err
}

func sampleAnswer(req ferrite.Request, key string) (*createMessageResult, bool, error) {
	var r createMessageResult
	ok, err := answer(req, key, "CreateMessageResult", &r, func() bool {
		return (r.Role == "user" || r.Role == "assistant") && r.Model != nil && r.Content != nil
	})
	return &r, ok, err
}

func rootsAnswer(req ferrite.Request, key string) (*listRootsResult, bool, error) {
	var r listRootsResult
	ok, err := answer(req, key, "ListRootsResult", &r, func() bool {
		if r.Roots == nil {
			return false
		}
		for _, root := range *r.Roots {
			if root.URI == nil {
				return false
			}
		}
		return true
	})
	return &r, ok, err
}

// accepted is the field of an accepted form (a string as is, anything else as JSON), or why
// there is none.
func (r *elicitResult) accepted(field string) (string, bool) {
	if r.Action != "accept" {
		return fmt.Sprintf("the user chose %q", r.Action), false
	}
	v, ok := r.Content[field]
	if !ok {
		return "the form has no " + field, false
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, true
	}
	return string(v), true
}

func (r *elicitResult) acceptedOrWhy(field string) string {
	s, _ := r.accepted(field)
	return s
}

// text is the text of the first text block.
func (r *createMessageResult) text() string {
	var blocks []struct {
		Type string          `json:"type"`
		Text json.RawMessage `json:"text"`
	}
	var text string
	if json.Unmarshal(r.Content, &blocks) == nil {
		for _, b := range blocks {
			if b.Type == "text" {
				json.Unmarshal(b.Text, &text)
				return text
			}
		}
		return ""
	}
	var block struct {
		Text json.RawMessage `json:"text"`
	}
	if json.Unmarshal(r.Content, &block) == nil {
		json.Unmarshal(block.Text, &text)
	}
	return text
}

func (r *listRootsResult) uris() string {
	uris := []string{}
	for _, root := range *r.Roots {
		uris = append(uris, *root.URI)
	}
	return strings.Join(uris, ", ")
}

// round is the state test_input_required_result_multi_round carries between rounds.
type round struct {
	Step *uint8  `json:"step"`
	Name *string `json:"name"`
}

func (r round) state() string {
	b, _ := json.Marshal(r)
	return string(b)
}

func mrtrTools() []struct {
	descriptor obj
	f          ferrite.ToolFunc
} {
	return []struct {
		descriptor obj
		f          ferrite.ToolFunc
	}{
		{tool("test_input_required_result_elicitation", "Asks for the user's name, then greets them (MRTR)", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				r, ok, err := elicitAnswer(req, "user_name")
				switch {
				case err != nil:
					return nil, err
				case !ok:
					return ask(map[string]ferrite.InputRequest{"user_name": askName()}, "")
				}
				if name, ok := r.accepted("name"); ok {
					return text("Hello, " + name + "!"), nil
				} else {
					return text("No name: " + name), nil
				}
			}},
		{tool("test_input_required_result_sampling", "Asks the client's LLM a question (MRTR)", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				r, ok, err := sampleAnswer(req, "capital_question")
				switch {
				case err != nil:
					return nil, err
				case !ok:
					return ask(map[string]ferrite.InputRequest{"capital_question": askCapital()}, "")
				}
				return text("The model answered: " + r.text()), nil
			}},
		{tool("test_input_required_result_list_roots", "Asks for the client's roots (MRTR)", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				r, ok, err := rootsAnswer(req, "client_roots")
				switch {
				case err != nil:
					return nil, err
				case !ok:
					return ask(map[string]ferrite.InputRequest{"client_roots": ferrite.ListRootsRequest()}, "")
				}
				return text("Roots: " + r.uris()), nil
			}},
		{tool("test_input_required_result_request_state", "Asks for a confirmation and carries state (MRTR)", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				const want = "awaiting-confirmation"
				state, present := req.RequestState()
				r, ok, err := elicitAnswer(req, "confirm")
				switch {
				case present && state == want && ok:
					return text("state-ok: confirmed=" + r.acceptedOrWhy("ok")), nil
				case present && state != want:
					return nil, ferrite.InvalidParams("unexpected request state %q", state)
				case err != nil:
					return nil, err
				}
				return ask(map[string]ferrite.InputRequest{"confirm": askConfirm()}, want)
			}},
		{tool("test_input_required_result_multiple_inputs", "Asks for a name, a greeting and the roots at once (MRTR)", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				n, nOK, nErr := elicitAnswer(req, "user_name")
				g, gOK, gErr := sampleAnswer(req, "greeting")
				r, rOK, rErr := rootsAnswer(req, "client_roots")
				if nOK && gOK && rOK {
					return text(fmt.Sprintf("name=%s; greeting=%s; roots=%s", n.acceptedOrWhy("name"), g.text(), r.uris())), nil
				}
				for _, err := range []error{nErr, gErr, rErr} {
					if err != nil {
						return nil, err
					}
				}
				return ask(map[string]ferrite.InputRequest{
					"user_name":    askName(),
					"greeting":     ferrite.SampleRequest(userTextSampling("Generate a greeting", 50)),
					"client_roots": ferrite.ListRootsRequest(),
				}, "multiple-inputs")
			}},
		{tool("test_input_required_result_multi_round", "Asks two questions in two rounds (MRTR)", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				step1 := map[string]ferrite.InputRequest{"step1": ferrite.ElicitRequest("Step 1: What is your name?", form("name"))}
				step2 := map[string]ferrite.InputRequest{"step2": ferrite.ElicitRequest("Step 2: What is your favorite color?", form("color"))}
				one := uint8(1)
				current := round{Step: &one}
				if s, ok := req.RequestState(); ok {
					if err := json.Unmarshal([]byte(s), &current); err != nil || current.Step == nil {
						return nil, ferrite.InvalidParams("request state: not a round")
					}
				}
				if *current.Step == 1 {
					r, ok, err := elicitAnswer(req, "step1")
					switch {
					case err != nil:
						return nil, err
					case !ok:
						return ask(step1, current.state())
					}
					two, name := uint8(2), r.acceptedOrWhy("name")
					return ask(step2, round{Step: &two, Name: &name}.state())
				}
				r, ok, err := elicitAnswer(req, "step2")
				switch {
				case err != nil:
					return nil, err
				case !ok:
					return ask(step2, current.state())
				}
				name := ""
				if current.Name != nil {
					name = *current.Name
				}
				return text(name + " likes " + r.acceptedOrWhy("color")), nil
			}},
		{tool("test_input_required_result_tampered_state", "Carries sealed state; an altered one is refused (MRTR)", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				state, present := req.RequestState()
				_, ok, err := elicitAnswer(req, "confirm")
				switch {
				case present && state == "tamper-check" && ok:
					return text("state verified"), nil
				case err != nil:
					return nil, err
				}
				return ask(map[string]ferrite.InputRequest{"confirm": askConfirm()}, "tamper-check")
			}},
		{tool("test_input_required_result_capabilities",
			"Asks only with what the client declared: elicitation, sampling, roots (MRTR)", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				if req.IsResubmission() {
					var answers map[string]json.RawMessage
					json.Unmarshal(req.InputResponses(), &answers)
					keys := []string{}
					for k := range answers {
						keys = append(keys, k)
					}
					sort.Strings(keys)
					quoted := []string{}
					for _, k := range keys {
						quoted = append(quoted, strconv.Quote(k))
					}
					return text("answered: [" + strings.Join(quoted, ", ") + "]"), nil
				}
				requests := map[string]ferrite.InputRequest{}
				if req.ClientSupports("elicitation") {
					requests["user_name"] = askName()
				}
				if req.ClientSupports("sampling") {
					requests["capital_question"] = askCapital()
				}
				if req.ClientSupports("roots") {
					requests["client_roots"] = ferrite.ListRootsRequest()
				}
				if len(requests) == 0 {
					return text("the client declared no capability to ask with"), nil
				}
				return ask(requests, "")
			}},
		{tool("test_streaming_elicitation", "Needs elicitation; asks the MRTR way, never with a request", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				r, ok, err := elicitAnswer(req, "user_name")
				switch {
				case err != nil:
					return nil, err
				case !ok:
					return ask(map[string]ferrite.InputRequest{"user_name": askName()}, "")
				}
				return text("Hello, " + r.acceptedOrWhy("name") + "!"), nil
			}},
	}
}

func dynamicTool(version uint64) obj {
	return tool("test_dynamic_tool", fmt.Sprintf("A tool test_trigger_tool_change replaces (version %d)", version), noArgs())
}

func addDynamicTool(s *ferrite.Server, version uint64) error {
	return s.AddTool(dynamicTool(version), fixed(text(fmt.Sprintf("dynamic tool version %d", version))))
}

func addDynamicPrompt(s *ferrite.Server, version uint64) error {
	return s.AddPrompt(obj{"name": "test_dynamic_prompt",
		"description": fmt.Sprintf("A prompt test_trigger_prompt_change replaces (version %d)", version)},
		func(ferrite.Request, map[string]string) (any, error) {
			return obj{"messages": []obj{userText(fmt.Sprintf("dynamic prompt version %d", version))}}, nil
		})
}

// registerModern registers the 2026-07-28 fixtures, after the other tools.
func registerModern(s *ferrite.Server) error {
	for _, t := range mrtrTools() {
		if err := s.AddTool(t.descriptor, t.f); err != nil {
			return fmt.Errorf("tool %v: %w", t.descriptor["name"], err)
		}
	}
	if err := s.SetToolRequiredClientCapabilities("test_streaming_elicitation", obj{"elicitation": obj{}}); err != nil {
		return err
	}
	if err := s.AddTool(tool("test_missing_capability", "Needs the client's sampling capability", noArgs()),
		fixed(text("the client declared sampling"))); err != nil {
		return err
	}
	if err := s.SetToolRequiredClientCapabilities("test_missing_capability", obj{"sampling": obj{}}); err != nil {
		return err
	}
	if err := s.AddTool(tool("test_logging_tool", "Logs two messages (sent only when the request asked for a log level)", noArgs()),
		func(req ferrite.Request, _ json.RawMessage) (any, error) {
			req.Log(ferrite.LogInfo, "Logging tool started", "")
			req.Log(ferrite.LogInfo, "Logging tool finished", "")
			return text("Logging tool executed"), nil
		}); err != nil {
		return err
	}
	if err := addDynamicTool(s, 0); err != nil {
		return err
	}
	if err := addDynamicPrompt(s, 0); err != nil {
		return err
	}
	var versions atomic.Uint64
	if err := s.AddTool(tool("test_trigger_tool_change", "Replaces test_dynamic_tool and announces the tools list changed", noArgs()),
		func(ferrite.Request, json.RawMessage) (any, error) {
			version := versions.Add(1)
			if err := addDynamicTool(s, version); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("tools list changed (version %d, %d listeners)", version, s.NotifyToolsListChanged())), nil
		}); err != nil {
		return err
	}
	if err := s.AddTool(tool("test_trigger_prompt_change", "Replaces test_dynamic_prompt and announces the prompts list changed", noArgs()),
		func(ferrite.Request, json.RawMessage) (any, error) {
			version := versions.Add(1)
			if err := addDynamicPrompt(s, version); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("prompts list changed (version %d, %d listeners)", version, s.NotifyPromptsListChanged())), nil
		}); err != nil {
		return err
	}
	// With --redis the update reaches the uri's subscribers on every instance of the fleet; the
	// text counts the listeners reached on this one.
	if err := s.AddTool(tool("test_trigger_resource_update", "Announces that the resource uri was updated (to its subscribers on every instance)",
		obj{"type": "object", "properties": obj{"uri": obj{"type": "string", "description": "The resource that changed"}},
			"required": []string{"uri"}}),
		func(_ ferrite.Request, args json.RawMessage) (any, error) {
			var a struct {
				URI string `json:"uri"`
			}
			json.Unmarshal(args, &a)
			return text(fmt.Sprintf("resource %s updated (%d listeners)", a.URI, s.NotifyResourceUpdated(a.URI))), nil
		}); err != nil {
		return err
	}
	if err := s.AddTool(tool("test_x_mcp_header", "Echoes a region that HTTP clients mirror into the Mcp-Param-Region header",
		obj{"type": "object", "properties": obj{"region": obj{"type": "string", "description": "A region name",
			"x-mcp-header": "Region"}}, "required": []string{"region"}}),
		func(_ ferrite.Request, args json.RawMessage) (any, error) {
			var a struct {
				Region string `json:"region"`
			}
			json.Unmarshal(args, &a)
			return text("region: " + a.Region), nil
		}); err != nil {
		return err
	}
	if err := s.AddPrompt(obj{"name": "test_input_required_result_prompt", "description": "Asks for context before it is built (MRTR)"},
		func(req ferrite.Request, _ map[string]string) (any, error) {
			r, ok, err := elicitAnswer(req, "user_context")
			switch {
			case err != nil:
				return nil, err
			case !ok:
				return ask(map[string]ferrite.InputRequest{
					"user_context": ferrite.ElicitRequest("What context should the prompt use?", form("context"))}, "")
			}
			return obj{"messages": []obj{userText("Context: " + r.acceptedOrWhy("context"))}}, nil
		}); err != nil {
		return err
	}
	if err := s.AddSkill("skill://add-numbers", map[string]string{"SKILL.md": skillMD, "references/EXAMPLES.md": skillExamples}); err != nil {
		return err
	}
	if err := s.EnableListChanged(); err != nil {
		return err
	}
	// A static resource may be cached by anyone for a minute (2026-07-28 cache hints).
	return s.SetResourceCacheHint("test://static-text", time.Minute, true)
}

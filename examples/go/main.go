// The Go everything server: the whole surface of examples/SURFACE.md over stdio or
// Streamable HTTP, written against the Go package ferrite.invalid/ferrite/bindings-go/ferrite
// (libferrite through cgo; the standard library otherwise).
//
// From the repository root, after `cargo build --release -p ferrite-ffi`:
//
//	go run ./examples/go [--stateless] [--port N [--mount] [--auth]]
//
// Without --port it serves stdio; --port N serves http://127.0.0.1:N/mcp (stateful, with
// sessions, unless --stateless). --mount serves the endpoint the way an application embeds
// it: Server.Handler mounted at /mcp on the application's own net/http ServeMux, which also
// answers GET /health, behind a middleware that turns an x-user header into the host value
// user (the test_host_value tool reads it). The test_request_info tool answers what the
// request info shows on any transport. --auth makes it an OAuth resource server: bearer JWTs of
// FERRITE_AUTH_ISSUER for the audience FERRITE_AUTH_AUDIENCE, keys from FERRITE_AUTH_JWKS_URL,
// and one more tool, whoami (scope mcp:whoami), answering the token's subject. Any other
// argument, or a flag without its value, prints the usage on stderr and exits with status 2;
// --help prints it on stdout and exits 0. FERRITE_HTTP_OPTIONS (a JSON object of the core's HTTP
// options, e.g. {"session_idle_timeout_ms": 5000}) is applied to its own listener.
// Both protocol eras are served: the handshake revisions and 2026-07-28 (fixtures in
// modern.go), and tasks in both generations (fixtures in tasks.go); the fault tools are in
// faults.go.
//
// With another cargo target directory, point cgo at it:
// CGO_LDFLAGS="-L$DIR/release -Wl,-rpath,$DIR/release" go run ./examples/go
//
// Slow tools (logging, progress, test_slow) return ferrite.ErrPending and finish in a goroutine, so
// no library worker thread is held; sampling and elicitation complete from their reply.
package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

type obj = map[string]any

func text(s string) obj { return obj{"content": []obj{{"type": "text", "text": s}}} }

func content(items ...obj) obj { return obj{"content": items} }

// maxExact is the largest integer magnitude add takes or answers: 2^53 - 1, what every JSON
// peer (JavaScript's numbers included) reads exactly.
const maxExact = 1<<53 - 1

func exact(n int64) bool { return n >= -maxExact && n <= maxExact }

func noArgs() obj { return obj{"type": "object", "additionalProperties": false} }

func tool(name, description string, schema obj) obj {
	return obj{"name": name, "description": description, "inputSchema": schema}
}

func fixed(result any) ferrite.ToolFunc {
	return func(ferrite.Request, json.RawMessage) (any, error) { return result, nil }
}

// wav is 0.1 s of 8 kHz mono 16-bit silence, base64.
func wav() string {
	const samples = 800
	dataLen := uint32(samples * 2)
	b := make([]byte, 44+dataLen)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], 36+dataLen)
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], 8000)
	binary.LittleEndian.PutUint32(b[28:], 16000)
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], dataLen)
	return base64.StdEncoding.EncodeToString(b)
}

// later runs work in a goroutine and tells the library the request is pending.
func later(work func()) (any, error) {
	go work()
	return nil, ferrite.ErrPending
}

func compact(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func elicitTool(req ferrite.Request, params obj, format func(action, content string) string, none string) (any, error) {
	err := req.Elicit(params, func(result json.RawMessage, err error) {
		if err != nil {
			req.Fail(err.Error())
			return
		}
		var r struct {
			Action  string          `json:"action"`
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal(result, &r)
		c := compact(r.Content)
		if c == "" {
			c = none
		}
		req.Complete(text(format(r.Action, c)))
	})
	if err != nil {
		return nil, err
	}
	return nil, ferrite.ErrPending
}

func registerTools(s *ferrite.Server) error {
	var cancellations atomic.Uint64
	tools := []struct {
		descriptor obj
		f          ferrite.ToolFunc
	}{
		// First: clients may call the first tool listed with no arguments.
		{tool("test_simple_text", "Returns a simple text response", noArgs()),
			fixed(text("This is a simple text response for testing."))},
		{obj{"name": "add", "description": "Add two integers and return their sum",
			"inputSchema": obj{"type": "object", "properties": obj{"a": obj{"type": "integer"}, "b": obj{"type": "integer"}},
				"required": []string{"a", "b"}},
			"outputSchema": obj{"type": "object", "properties": obj{"sum": obj{"type": "integer"}}, "required": []string{"sum"}}},
			func(_ ferrite.Request, args json.RawMessage) (any, error) {
				// Every surface adds the integers any JSON peer reads exactly (RFC 7493: magnitude at
				// most 2^53 - 1); an operand or a sum beyond them is the same tool error everywhere.
				var a struct{ A, B json.Number }
				if err := json.Unmarshal(args, &a); err != nil {
					return nil, err
				}
				x, errA := strconv.ParseInt(string(a.A), 10, 64)
				y, errB := strconv.ParseInt(string(a.B), 10, 64)
				if errA != nil || errB != nil || !exact(x) || !exact(y) || !exact(x+y) {
					return nil, fmt.Errorf("integer overflow")
				}
				sum := x + y
				return obj{"content": []obj{{"type": "text", "text": fmt.Sprint(sum)}}, "structuredContent": obj{"sum": sum}}, nil
			}},
		{tool("echo", "Echo the text back", obj{"$schema": "https://json-schema.org/draft/2020-12/schema",
			"description": "The arguments of echo.", "type": "object",
			"properties": obj{"text": obj{"type": "string", "description": "The text to echo back."}}, "required": []string{"text"}}),
			func(_ ferrite.Request, args json.RawMessage) (any, error) {
				var a struct{ Text string }
				err := json.Unmarshal(args, &a)
				return text(a.Text), err
			}},
		{tool("test_image_content", "Returns an image (PNG)", noArgs()),
			fixed(content(obj{"type": "image", "data": png, "mimeType": "image/png"}))},
		{tool("test_audio_content", "Returns audio (WAV)", noArgs()),
			fixed(content(obj{"type": "audio", "data": wav(), "mimeType": "audio/wav"}))},
		{tool("test_embedded_resource", "Returns an embedded resource", noArgs()),
			fixed(content(obj{"type": "resource", "resource": obj{"uri": "test://embedded-resource", "mimeType": "text/plain",
				"text": "This is an embedded resource content."}}))},
		{tool("test_multiple_content_types", "Returns text, an image and a resource", noArgs()),
			fixed(content(
				obj{"type": "text", "text": "Multiple content types test:"},
				obj{"type": "image", "data": png, "mimeType": "image/png"},
				obj{"type": "resource", "resource": obj{"uri": "test://mixed-content-resource", "mimeType": "application/json",
					"text": `{"test":"data","value":123}`}}))},
		{tool("test_tool_with_logging", "Logs three messages while it runs", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				return later(func() {
					for i, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
						if i > 0 {
							time.Sleep(50 * time.Millisecond)
						}
						req.Log(ferrite.LogInfo, m, "")
					}
					req.Complete(text("Tool with logging executed successfully"))
				})
			}},
		{tool("test_tool_with_progress", "Reports progress 0, 50, 100 of 100", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				return later(func() {
					for i, p := range []float64{0, 50, 100} {
						if i > 0 {
							time.Sleep(50 * time.Millisecond)
						}
						req.ReportProgress(p, 100, "")
					}
					req.Complete(text("Tool with progress executed successfully"))
				})
			}},
		{tool("test_error_handling", "Always fails with isError", noArgs()),
			func(ferrite.Request, json.RawMessage) (any, error) {
				return nil, fmt.Errorf("This tool intentionally returns an error for testing")
			}},
		{tool("test_sampling", "Asks the client's LLM to answer a prompt", obj{"type": "object",
			"properties": obj{"prompt": obj{"type": "string", "description": "The prompt to send"}}, "required": []string{"prompt"}}),
			func(req ferrite.Request, args json.RawMessage) (any, error) {
				var a struct{ Prompt string }
				json.Unmarshal(args, &a)
				params := obj{"messages": []obj{{"role": "user", "content": obj{"type": "text", "text": a.Prompt}}}, "maxTokens": 100}
				err := req.Sample(params, func(result json.RawMessage, err error) {
					if err != nil {
						req.Fail(err.Error())
						return
					}
					var single struct{ Content struct{ Text string } }
					var many struct{ Content []struct{ Text string } }
					reply := ""
					if json.Unmarshal(result, &single) == nil {
						reply = single.Content.Text
					} else if json.Unmarshal(result, &many) == nil && len(many.Content) > 0 {
						reply = many.Content[0].Text
					}
					req.Complete(text("LLM response: " + reply))
				})
				if err != nil {
					return nil, err
				}
				return nil, ferrite.ErrPending
			}},
		{tool("test_elicitation", "Asks the user for a username and an email", obj{"type": "object",
			"properties": obj{"message": obj{"type": "string", "description": "The message to show the user"}},
			"required":   []string{"message"}}),
			func(req ferrite.Request, args json.RawMessage) (any, error) {
				var a struct{ Message string }
				json.Unmarshal(args, &a)
				schema := obj{"type": "object", "properties": obj{
					"username": obj{"type": "string", "description": "User's response"},
					"email":    obj{"type": "string", "description": "User's email address"}},
					"required": []string{"username", "email"}}
				return elicitTool(req, obj{"message": a.Message, "requestedSchema": schema},
					func(action, c string) string { return "User response: " + action + " " + c }, "null")
			}},
		{tool("test_elicitation_sep1034_defaults", "Elicits fields with default values (SEP-1034)", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				schema := obj{"type": "object", "properties": obj{
					"name":     obj{"type": "string", "description": "User name", "default": "John Doe"},
					"age":      obj{"type": "integer", "description": "User age", "default": 30},
					"score":    obj{"type": "number", "description": "User score", "default": 95.5},
					"status":   obj{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
					"verified": obj{"type": "boolean", "description": "Verification status", "default": true}},
					"required": []string{}}
				return elicitTool(req, obj{"message": "Please review and update the form fields with defaults", "requestedSchema": schema},
					formResult, "{}")
			}},
		{tool("test_elicitation_sep1330_enums", "Elicits every enum schema variant (SEP-1330)", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				titled := func(prefix string, titles ...string) []obj {
					out := []obj{}
					for i, t := range titles {
						out = append(out, obj{"const": fmt.Sprintf("%s%d", prefix, i+1), "title": t})
					}
					return out
				}
				schema := obj{"type": "object", "properties": obj{
					"untitledSingle": obj{"type": "string", "description": "Select one option", "enum": []string{"option1", "option2", "option3"}},
					"titledSingle": obj{"type": "string", "description": "Select one option with titles",
						"oneOf": titled("value", "First Option", "Second Option", "Third Option")},
					"legacyEnum": obj{"type": "string", "description": "Select one option (legacy)", "enum": []string{"opt1", "opt2", "opt3"},
						"enumNames": []string{"Option One", "Option Two", "Option Three"}},
					"untitledMulti": obj{"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
						"items": obj{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
					"titledMulti": obj{"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
						"items": obj{"anyOf": titled("value", "First Choice", "Second Choice", "Third Choice")}}},
					"required": []string{}}
				return elicitTool(req, obj{"message": "Please select options from the enum fields", "requestedSchema": schema},
					formResult, "{}")
			}},
		{tool("json_schema_2020_12_tool", "A tool whose input schema uses JSON Schema 2020-12 features", obj{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type":    "object",
			"$defs": obj{"address": obj{"$anchor": "addressDef", "type": "object",
				"properties": obj{"street": obj{"type": "string"}, "city": obj{"type": "string"}}}},
			"properties": obj{"name": obj{"type": "string"}, "address": obj{"$ref": "#/$defs/address"},
				"contactMethod": obj{"type": "string", "enum": []string{"phone", "email"}},
				"phone":         obj{"type": "string"}, "email": obj{"type": "string"}},
			"allOf": []obj{{"anyOf": []obj{{"required": []string{"phone"}}, {"required": []string{"email"}}}}},
			"if":    obj{"properties": obj{"contactMethod": obj{"const": "phone"}}, "required": []string{"contactMethod"}},
			"then":  obj{"required": []string{"phone"}}, "else": obj{"required": []string{"email"}},
			"additionalProperties": false}),
			func(_ ferrite.Request, args json.RawMessage) (any, error) {
				return text("JSON Schema 2020-12 tool called with: " + string(args)), nil
			}},
		{tool("test_reconnection", "Closes the SSE stream mid-call (HTTP); the result arrives after the client reconnects", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				const done = "Reconnection test completed"
				if !req.CloseSSEStream(200 * time.Millisecond) {
					return text(done), nil
				}
				// The client reconnects with Last-Event-ID after the retry hint and gets the
				// result on the resumed stream.
				return later(func() {
					time.Sleep(300 * time.Millisecond)
					req.Complete(text(done))
				})
			}},
		{tool("test_slow", "Waits ms milliseconds, stopping early when cancelled", obj{"type": "object",
			"properties": obj{"ms": obj{"type": "integer", "minimum": 0}}, "required": []string{"ms"}}),
			func(req ferrite.Request, args json.RawMessage) (any, error) {
				var a struct{ Ms int64 }
				json.Unmarshal(args, &a)
				return later(func() {
					deadline := time.Now().Add(time.Duration(a.Ms) * time.Millisecond)
					for time.Now().Before(deadline) {
						if req.IsCancelled() {
							cancellations.Add(1)
							req.Complete(text("cancelled"))
							return
						}
						time.Sleep(10 * time.Millisecond)
					}
					req.Complete(text(fmt.Sprintf("completed after %d ms", a.Ms)))
				})
			}},
		{tool("test_cancellation_count", "How many test_slow and test_fault_hang calls observed cancellation", noArgs()),
			func(ferrite.Request, json.RawMessage) (any, error) {
				return text(fmt.Sprint(cancellations.Load())), nil
			}},
	}
	tools = append(tools, faultTools(&cancellations)...)
	for _, t := range tools {
		if err := s.AddTool(t.descriptor, t.f); err != nil {
			return fmt.Errorf("tool %v: %w", t.descriptor["name"], err)
		}
	}
	return nil
}

func formResult(action, c string) string {
	return "Elicitation completed: action=" + action + ", content=" + c
}

func registerResources(s *ferrite.Server) error {
	textResource := func(mime, body string) ferrite.ResourceFunc {
		return func(_ ferrite.Request, uri string, _ map[string]string) (any, error) {
			return obj{"contents": []obj{{"uri": uri, "mimeType": mime, "text": body}}}, nil
		}
	}
	if err := s.AddResource(obj{"uri": "test://static-text", "name": "static-text", "description": "A static text resource",
		"mimeType": "text/plain"}, textResource("text/plain", "This is the content of the static text resource.")); err != nil {
		return err
	}
	if err := s.AddResource(obj{"uri": "test://static-binary", "name": "static-binary", "description": "A static PNG image",
		"mimeType": "image/png"}, func(_ ferrite.Request, uri string, _ map[string]string) (any, error) {
		return obj{"contents": []obj{{"uri": uri, "mimeType": "image/png", "blob": png}}}, nil
	}); err != nil {
		return err
	}
	if err := s.AddResource(obj{"uri": "test://watched-resource", "name": "watched-resource",
		"description": "A resource clients can subscribe to", "mimeType": "text/plain"},
		textResource("text/plain", "Watched resource content")); err != nil {
		return err
	}
	return s.AddResourceTemplate(obj{"uriTemplate": "test://template/{id}/data", "name": "template",
		"description": "Data for an id", "mimeType": "application/json"},
		func(_ ferrite.Request, uri string, vars map[string]string) (any, error) {
			id := vars["id"]
			body, err := json.Marshal(struct {
				ID           string `json:"id"`
				TemplateTest bool   `json:"templateTest"`
				Data         string `json:"data"`
			}{id, true, "Data for ID: " + id})
			return obj{"contents": []obj{{"uri": uri, "mimeType": "application/json", "text": string(body)}}}, err
		})
}

func userText(s string) obj { return obj{"role": "user", "content": obj{"type": "text", "text": s}} }

func registerPrompts(s *ferrite.Server) error {
	prompts := []struct {
		descriptor obj
		f          ferrite.PromptFunc
	}{
		{obj{"name": "test_simple_prompt", "description": "A simple prompt without arguments"},
			func(ferrite.Request, map[string]string) (any, error) {
				return obj{"messages": []obj{userText("This is a simple prompt for testing.")}}, nil
			}},
		{obj{"name": "test_prompt_with_arguments", "description": "A prompt with two arguments", "arguments": []obj{
			{"name": "arg1", "description": "First test argument", "required": true},
			{"name": "arg2", "description": "Second test argument", "required": true}}},
			func(_ ferrite.Request, a map[string]string) (any, error) {
				return obj{"messages": []obj{userText(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"]))}}, nil
			}},
		{obj{"name": "test_prompt_with_embedded_resource", "description": "A prompt that embeds a resource", "arguments": []obj{
			{"name": "resourceUri", "description": "URI of the resource to embed", "required": true}}},
			func(_ ferrite.Request, a map[string]string) (any, error) {
				return obj{"messages": []obj{
					{"role": "user", "content": obj{"type": "resource", "resource": obj{"uri": a["resourceUri"],
						"mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
					userText("Please process the embedded resource above.")}}, nil
			}},
		{obj{"name": "test_prompt_with_image", "description": "A prompt with an image"},
			func(ferrite.Request, map[string]string) (any, error) {
				return obj{"messages": []obj{
					{"role": "user", "content": obj{"type": "image", "data": png, "mimeType": "image/png"}},
					userText("Please analyze the image above.")}}, nil
			}},
	}
	for _, p := range prompts {
		if err := s.AddPrompt(p.descriptor, p.f); err != nil {
			return err
		}
	}
	return s.SetArgumentCandidates(obj{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "arg1",
		[]string{"paris", "park", "party", "pasta", "zebra"})
}

func run() error {
	stateless, protect, mount := false, false, false
	port := -1 // stdio
	redis := ""
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--help", "-h":
			fmt.Println(usage)
			return nil
		case "--stateless":
			stateless = true
		case "--auth":
			protect = true
		case "--mount":
			mount = true
		case "--redis":
			if i+1 == len(args) {
				return usageError("--redis needs a URL")
			}
			i++
			redis = args[i]
		case "--port":
			if i+1 == len(args) {
				return usageError("--port needs a port number")
			}
			i++
			p, err := strconv.ParseUint(args[i], 10, 16)
			if err != nil {
				return usageError(fmt.Sprintf("--port needs a port number (0-65535), not %q", args[i]))
			}
			port = int(p)
		default:
			return usageError(fmt.Sprintf("unknown argument %q", args[i]))
		}
	}
	opts := []ferrite.ServerOption{ferrite.WithInstructions("Ferrite's everything server: the MCP conformance fixture surface.")}
	if stateless {
		opts = append(opts, ferrite.Stateless())
	}
	if mount && port < 0 {
		return usageError("--mount needs --port")
	}
	if protect {
		if port < 0 {
			return usageError("--auth needs --port (tokens travel in HTTP headers)")
		}
		config, err := authFromEnv()
		if err != nil {
			return setupError(err.Error())
		}
		opts = append(opts, ferrite.WithAuth(config))
	}
	s, err := ferrite.NewServer(ferrite.Implementation{Name: "ferrite-everything", Version: "0.1.0"}, opts...)
	if err != nil {
		if protect {
			return setupError(err.Error()) // the core's text: invalid auth option ...
		}
		return err
	}
	defer s.Free()
	if err := joinFleet(s, redis); err != nil {
		return setupError(err.Error())
	}
	for _, register := range []func(*ferrite.Server) error{registerTools, registerResources, registerPrompts, registerModern,
		registerTasks} {
		if err := register(s); err != nil {
			return err
		}
	}
	if protect {
		whoami := ferrite.Tool{Name: "whoami", Description: "Answers the subject of the caller's access token (needs scope mcp:whoami)",
			InputSchema: obj{"type": "object", "additionalProperties": false}}
		if err := s.AddTool(whoami, func(req ferrite.Request, _ json.RawMessage) (any, error) {
			return ferrite.TextResult(req.Subject()), nil
		}); err != nil {
			return err
		}
	}
	if err := s.AddTool(tool("test_request_info", "Answers what the transport knows about the request (null fields over stdio)",
		noArgs()), requestInfo); err != nil {
		return err
	}
	if mount {
		if err := s.AddTool(tool("test_host_value", "Reads the user the host app's middleware attached", noArgs()),
			func(req ferrite.Request, _ json.RawMessage) (any, error) {
				user := "nobody"
				if v, ok := req.HostValue("user"); ok {
					json.Unmarshal(v, &user)
				}
				return text("user: " + user), nil
			}); err != nil {
			return err
		}
	}
	// Handshake-era sessions subscribe with resources/subscribe; 2026-07-28 clients (any
	// mode) through listen streams.
	if err := s.EnableResourceSubscriptions(); err != nil {
		return err
	}
	// Spans and metrics over OTLP/HTTP when a collector is named (the OTEL_* variables).
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" {
		if err := s.EnableTelemetry(); err != nil {
			return err
		}
		defer ferrite.ShutdownTelemetry()
	}
	if port < 0 {
		return s.ServeStdio()
	}
	if mount {
		return serveMounted(s, port)
	}
	var httpOpts *ferrite.HTTPOptions
	if j := os.Getenv("FERRITE_HTTP_OPTIONS"); j != "" {
		// The core's HTTP options as JSON (the soak's expiry run sets session_idle_timeout_ms).
		dec := json.NewDecoder(strings.NewReader(j))
		dec.DisallowUnknownFields()
		httpOpts = &ferrite.HTTPOptions{}
		if err := dec.Decode(httpOpts); err != nil {
			return fmt.Errorf("FERRITE_HTTP_OPTIONS: %w", err)
		}
	}
	l, err := s.Listen("127.0.0.1", uint16(port), httpOpts)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "everything: Streamable HTTP on http://127.0.0.1:%d/mcp\n", l.Port())
	return l.Serve()
}

// requestInfo answers the request info: the method, path and client address, the x-user
// header and the host value user (null when absent: over stdio, all of them).
func requestInfo(req ferrite.Request, _ json.RawMessage) (any, error) {
	orNull := func(s string, ok bool) any {
		if !ok {
			return nil
		}
		return s
	}
	user, _ := req.HostValue("user")
	if user == nil {
		user = json.RawMessage("null")
	}
	header, ok := req.Header("x-user")
	seen := obj{"method": orNull(req.Method(), req.Method() != ""), "path": orNull(req.Path(), req.Path() != ""),
		"remoteAddr": orNull(req.RemoteAddr(), req.RemoteAddr() != ""), "xUser": orNull(header, ok), "user": user}
	b, err := json.Marshal(seen)
	return text(string(b)), err
}

// identify is the application's middleware: who the caller is (here, an x-user header), for
// handlers to read as the host value user.
func identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user := r.Header.Get("X-User"); user != "" {
			r = r.WithContext(ferrite.ContextWithHostValue(r.Context(), "user", user))
		}
		next.ServeHTTP(w, r)
	})
}

// serveMounted serves the endpoint mounted in the application's own net/http ServeMux, beside
// a route of its own, on 127.0.0.1:port.
func serveMounted(s *ferrite.Server, port int) error {
	h, err := s.Handler(nil)
	if err != nil {
		return err
	}
	defer h.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	mux.Handle(h.Path(), identify(h))
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "everything: mounted in a net/http ServeMux on http://%s%s\n", ln.Addr(), h.Path())
	return (&http.Server{Handler: mux}).Serve(ln)
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "everything:", err)
		switch err.(type) {
		case usageError, setupError:
			os.Exit(2)
		}
		os.Exit(1)
	}
}

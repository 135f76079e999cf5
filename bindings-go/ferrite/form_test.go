package ferrite_test

// Typed forms (issue 12): ferrite.FormSchema / ferrite.ElicitForm make the form from a struct
// and decode the accepted answer into it; the core checks the schema and the answer.

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"ferrite.invalid/ferrite/bindings-go/ferrite"
)

type signup struct {
	Name      string   `json:"name" title:"Name" description:"Your name"`
	Plan      string   `json:"plan" enum:"basic, pro"`
	Age       int      `json:"age,omitempty"`
	Score     *float64 `json:"score"`
	Subscribe bool
	Level     uint8  `json:"level,omitempty"`
	Skipped   string `json:"-"`
	internal  string // unexported: not in the form
}

const signupSchema = `{"properties":{"Subscribe":{"type":"boolean"},"age":{"type":"integer"},` +
	`"level":{"maximum":255,"minimum":0,"type":"integer"},"name":{"description":"Your name","title":"Name","type":"string"},` +
	`"plan":{"enum":["basic","pro"],"type":"string"},"score":{"type":"number"}},"required":["name","plan","Subscribe"],"type":"object"}`

func TestFormSchemaOfAStructIsItsFlatFields(t *testing.T) {
	schema, err := ferrite.FormSchema[signup]()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(schema); string(got) != signupSchema {
		t.Fatalf("the form of signup:\n%s\nwant\n%s", got, signupSchema)
	}
	type nested struct {
		Address struct{ City string }
	}
	type list struct {
		Tags []string `json:"tags"`
	}
	type enumInt struct {
		N int `enum:"1,2"`
	}
	for what, err := range map[string]error{
		"nested": func() error { _, err := ferrite.FormSchema[nested](); return err }(),
		"list":   func() error { _, err := ferrite.FormSchema[list](); return err }(),
		"enum":   func() error { _, err := ferrite.FormSchema[enumInt](); return err }(),
		"string": func() error { _, err := ferrite.FormSchema[string](); return err }(),
	} {
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
	}
	if _, err := ferrite.FormSchema[list](); err.Error() !=
		"ferrite: form ferrite_test.list, field Tags: a form field is a string, bool, integer or float (or a pointer to one), not []string" {
		t.Fatalf("the error names the field and its type: %v", err)
	}
}

// askSignup completes the request with what ElicitForm gave.
func askSignup(req ferrite.Request, _ json.RawMessage) (any, error) {
	err := ferrite.ElicitForm(req, "Sign up", func(r ferrite.Elicited[signup], err error) {
		var fe *ferrite.Error
		switch {
		case errors.As(err, &fe):
			req.Complete(ferrite.TextResult(fmt.Sprintf("error %d: %s", fe.Code, fe.Detail)))
		case err != nil:
			req.Complete(ferrite.TextResult("error: " + err.Error()))
		case !r.Accepted():
			req.Complete(ferrite.TextResult(fmt.Sprintf("%s %v", r.Action, r.Content)))
		default:
			v := r.Content
			req.Complete(ferrite.TextResult(fmt.Sprintf("%s name=%s plan=%s age=%d score=%v subscribe=%v level=%d",
				r.Action, v.Name, v.Plan, v.Age, *v.Score, v.Subscribe, v.Level)))
		}
	})
	if err != nil {
		return nil, err
	}
	return nil, ferrite.ErrPending
}

func TestElicitFormSendsTheStructsFormAndDecodesTheAcceptedAnswer(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "signup"}, askSignup)
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, initialize2025)
	c.answer(0, `{"action":"accept","content":{"name":"Ada","plan":"pro","score":9.5,"Subscribe":true,"level":3}}`)
	if got := text(t, call(t, c.conn.HandleRaw, toolCall(2, "signup", "{}"))); got !=
		"accept name=Ada plan=pro age=0 score=9.5 subscribe=true level=3" {
		t.Fatalf("the decoded answer: %s", got)
	}
	var sent, want any
	raw, _ := json.Marshal(field(c.frame(t, 0), "params", "requestedSchema"))
	json.Unmarshal(raw, &sent)
	json.Unmarshal([]byte(signupSchema), &want)
	if !reflect.DeepEqual(sent, want) {
		t.Fatalf("the requestedSchema sent: %s", raw)
	}
	c.answer(1, `{"action":"decline"}`)
	if got := text(t, call(t, c.conn.HandleRaw, toolCall(3, "signup", "{}"))); got != "decline <nil>" {
		t.Fatalf("a declined form: %s", got)
	}
}

func TestElicitFormRefusesAStructTheFormCannotExpressBeforeSending(t *testing.T) {
	s := newServer(t)
	type withAddress struct {
		Name    string `json:"name"`
		Address struct {
			City string `json:"city"`
		} `json:"address"`
	}
	addTool(t, s, ferrite.Tool{Name: "nested"}, func(req ferrite.Request, _ json.RawMessage) (any, error) {
		return nil, ferrite.ElicitForm(req, "Where?", func(ferrite.Elicited[withAddress], error) {
			req.Complete(ferrite.TextResult("sent"))
		})
	})
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, initialize2025)
	resp := call(t, c.conn.HandleRaw, toolCall(2, "nested", "{}"))
	want := "ferrite: form ferrite_test.withAddress, field Address: a form field is a string, bool, integer or float " +
		"(or a pointer to one), not struct { City string \"json:\\\"city\\\"\" }"
	if got := text(t, resp); got != want || field(resp, "result", "isError") != true {
		t.Fatalf("the refusal: %q", got)
	}
	c.mu.Lock()
	n := len(c.frames)
	c.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d frames reached the client", n)
	}
}

func TestAnAcceptedAnswerThatDoesNotFitTheFormIsTheCoresError(t *testing.T) {
	s := newServer(t)
	addTool(t, s, ferrite.Tool{Name: "signup"}, askSignup)
	c := newClient(t, s)
	call(t, c.conn.HandleRaw, initialize2025)
	c.answer(0, `{"action":"accept","content":{"name":"Ada","plan":"gold","score":1,"Subscribe":false}}`)
	want := fmt.Sprintf(`error %d: the accepted answer does not fit the requested form: field "plan": "gold" is not one of the options`,
		ferrite.CodePeerError)
	if got := text(t, call(t, c.conn.HandleRaw, toolCall(2, "signup", "{}"))); got != want {
		t.Fatalf("the core's error: %s", got)
	}
}

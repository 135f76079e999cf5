package ferrite

// Typed elicitation forms: a form's JSON Schema made from a Go struct by reflection, and the
// accepted answer decoded back into it. The core checks the schema against the spec's
// restrictions before sending and the answer against the schema when it arrives; this file
// only builds the schema and decodes.

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Elicited is the user's answer to a typed form (ElicitForm).
type Elicited[T any] struct {
	// Action is "accept", "decline" or "cancel".
	Action string
	// Content is the submitted form decoded into T; nil unless Action is "accept".
	Content *T
}

// Accepted reports whether the user submitted the form.
func (e Elicited[T]) Accepted() bool { return e.Action == "accept" }

// ElicitForm asks the user to fill a form made from T (see FormSchema) and decodes the accepted
// answer into T; reply runs on a library thread. A T the form cannot express is an error
// returned at once, before anything is sent. An accepted answer that does not fit the form is
// the core's error (a *Error with CodePeerError: "the accepted answer does not fit the
// requested form: field ..."). Needs what Request.Elicit needs.
func ElicitForm[T any](r Request, message string, reply func(Elicited[T], error)) error {
	schema, err := FormSchema[T]()
	if err != nil {
		return err
	}
	params := map[string]any{"message": message, "requestedSchema": schema}
	return r.Elicit(params, func(result json.RawMessage, err error) {
		if err != nil {
			reply(Elicited[T]{}, err)
			return
		}
		reply(decodeElicited[T](result))
	})
}

// decodeElicited reads an ElicitResult, the accepted content into T.
func decodeElicited[T any](result json.RawMessage) (Elicited[T], error) {
	var r struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return Elicited[T]{}, fmt.Errorf("ferrite: the elicitation result does not decode: %w", err)
	}
	out := Elicited[T]{Action: r.Action}
	if r.Action != "accept" {
		return out, nil
	}
	content := r.Content
	if len(content) == 0 || string(content) == "null" {
		content = json.RawMessage("{}")
	}
	var v T
	if err := json.Unmarshal(content, &v); err != nil {
		return out, fmt.Errorf("ferrite: the accepted answer does not decode into %T: %w", v, err)
	}
	out.Content = &v
	return out, nil
}

// FormSchema is the elicitation form (a JSON Schema object) for struct type T, one property per
// exported field, in field order:
//   - the name is the field's json tag name (the field name without one); `json:"-"` skips it;
//   - string, bool, int*, uint* and float* fields are "string", "boolean", "integer" (with the
//     type's bounds as minimum and maximum, unsigned ones from 0) and "number";
//   - a field is required unless its json tag says omitempty (or omitzero) or it is a pointer
//     to one of those types;
//   - tags `title:"..."` and `description:"..."` become the property's title and description,
//     and `enum:"a,b"` on a string field its options.
//
// Any other field type (a nested struct, slice, map, interface, embedded struct) is an error:
// the spec's forms are flat objects of primitive values.
func FormSchema[T any]() (map[string]any, error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("ferrite: a form is made from a struct, not %v", t)
	}
	properties := map[string]any{}
	required := []string{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		name, optional, skip, err := jsonName(f)
		if err != nil {
			return nil, fmt.Errorf("ferrite: form %v, field %s: %w", t, f.Name, err)
		}
		if skip {
			continue
		}
		if f.Anonymous {
			return nil, fmt.Errorf("ferrite: form %v, field %s: an embedded struct is not a form field (a form is flat)", t, f.Name)
		}
		if _, dup := properties[name]; dup {
			return nil, fmt.Errorf("ferrite: form %v: two fields are named %q", t, name)
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft, optional = ft.Elem(), true
		}
		prop, err := property(ft, f.Tag)
		if err != nil {
			return nil, fmt.Errorf("ferrite: form %v, field %s: %w", t, f.Name, err)
		}
		properties[name] = prop
		if !optional {
			required = append(required, name)
		}
	}
	schema := map[string]any{"type": "object", "properties": properties}
	if len(required) > 0 {
		schema["required"] = required
	}
	return schema, nil
}

// jsonName reads a field's json tag as encoding/json does: its name, whether omitempty or
// omitzero makes it optional, and whether "-" skips it.
func jsonName(f reflect.StructField) (name string, optional, skip bool, err error) {
	tag, ok := f.Tag.Lookup("json")
	if tag == "-" {
		return "", false, true, nil
	}
	name, opts, _ := strings.Cut(tag, ",")
	if !ok || name == "" {
		name = f.Name
	}
	for _, o := range strings.Split(opts, ",") {
		switch o {
		case "omitempty", "omitzero":
			optional = true
		case "string":
			return "", false, false, fmt.Errorf("the json option \",string\" does not fit a form")
		}
	}
	return name, optional, false, nil
}

// property is the schema of one form field of type t (not a pointer).
func property(t reflect.Type, tag reflect.StructTag) (map[string]any, error) {
	p := map[string]any{}
	switch t.Kind() {
	case reflect.String:
		p["type"] = "string"
	case reflect.Bool:
		p["type"] = "boolean"
	case reflect.Int, reflect.Int64:
		p["type"] = "integer"
	case reflect.Int8, reflect.Int16, reflect.Int32:
		bits := t.Bits()
		p["type"], p["minimum"], p["maximum"] = "integer", int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
	case reflect.Uint, reflect.Uint64:
		p["type"], p["minimum"] = "integer", 0
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		p["type"], p["minimum"], p["maximum"] = "integer", 0, uint64(math.MaxUint64)>>(64-t.Bits())
	case reflect.Float32, reflect.Float64:
		p["type"] = "number"
	default:
		return nil, fmt.Errorf("a form field is a string, bool, integer or float (or a pointer to one), not %v", t)
	}
	if v, ok := tag.Lookup("title"); ok {
		p["title"] = v
	}
	if v, ok := tag.Lookup("description"); ok {
		p["description"] = v
	}
	if v, ok := tag.Lookup("enum"); ok {
		if t.Kind() != reflect.String {
			return nil, fmt.Errorf("an enum tag is for string fields, not %v", t)
		}
		options := []string{}
		for _, o := range strings.Split(v, ",") {
			if o = strings.TrimSpace(o); o != "" {
				options = append(options, o)
			}
		}
		if len(options) == 0 {
			return nil, fmt.Errorf("the enum tag lists no options")
		}
		p["enum"] = options
	}
	return p, nil
}
